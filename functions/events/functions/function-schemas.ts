// Input shapes of the functions endpoints (DECISIONS: Events and functions).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';

const webhookUrl = lazySchema(() =>
  z
    .string()
    .max(2048)
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'Send an http or https URL.'),
);

export const appParams = lazySchema(() => z.object({ app_slug: z.string().min(1).max(100) }));
export const functionParams = lazySchema(() =>
  z.object({ app_slug: z.string().min(1).max(100), function_slug: z.string().min(1).max(100) }),
);

export const createFunctionBody = lazySchema(() =>
  z.strictObject({
    name: z.string().trim().min(1).max(255),
    slug: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$/, 'Use lowercase letters, digits and hyphens.')
      .optional(),
    execution_mode: z.literal('webhook').optional().default('webhook'),
    webhook_url: webhookUrl(),
    timeout_seconds: z.number().int().min(1).max(300).optional().default(300),
    is_active: z.boolean().optional().default(true),
  }),
);
export type CreateFunctionBody = z.infer<ReturnType<typeof createFunctionBody>>;

export const patchFunctionBody = lazySchema(() =>
  z.strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    webhook_url: webhookUrl().optional(),
    timeout_seconds: z.number().int().min(1).max(300).optional(),
    is_active: z.boolean().optional(),
  }),
);
export type PatchFunctionBody = z.infer<ReturnType<typeof patchFunctionBody>>;

export const listQuery = lazySchema(() => z.object({ ...pageQuery() }));
