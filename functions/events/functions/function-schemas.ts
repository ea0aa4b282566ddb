// Input shapes of the functions endpoints (DECISIONS: Events and functions).
import * as z from 'zod';
import { pageQuery } from '#shared/http/pagination.ts';

const webhookUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'Send an http or https URL.');

export const appParams = z.object({ app_slug: z.string().min(1).max(100) });
export const functionParams = z.object({ app_slug: z.string().min(1).max(100), function_slug: z.string().min(1).max(100) });

export const createFunctionBody = z.strictObject({
  name: z.string().trim().min(1).max(255),
  slug: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$/, 'Use lowercase letters, digits and hyphens.')
    .optional(),
  execution_mode: z.literal('webhook').optional().default('webhook'),
  webhook_url: webhookUrl,
  timeout_seconds: z.number().int().min(1).max(300).optional().default(300),
  is_active: z.boolean().optional().default(true),
});
export type CreateFunctionBody = z.infer<typeof createFunctionBody>;

export const patchFunctionBody = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  webhook_url: webhookUrl.optional(),
  timeout_seconds: z.number().int().min(1).max(300).optional(),
  is_active: z.boolean().optional(),
});
export type PatchFunctionBody = z.infer<typeof patchFunctionBody>;

export const listQuery = z.object({ ...pageQuery() });
