// Input of the social app endpoints (zod). Required fields are checked by the rules (all at once,
// with the spec's "This field is required."), so here every field is optional and only typed.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';

export const socialAppParams = lazySchema(() =>
  z.object({
    id: z
      .string()
      .regex(/^\d{1,9}$/, 'A social app id is a whole number.')
      .transform(Number),
  }),
);

export const socialAppBody = lazySchema(() =>
  z.object({
    provider: z.string().max(50).optional(),
    provider_id: z.string().max(100).optional(),
    name: z.string().max(255).optional(),
    client_id: z.string().max(255).optional(),
    secret: z.string().max(4096).optional(),
    key: z.string().max(4096).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
);

const orderingFields = ['id', 'name', 'provider'] as const;

export const listSocialAppsQuery = lazySchema(() =>
  z.object({
    search: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    ordering: z
      .string()
      .default('name')
      .transform((text, context) => {
        const descending = text.startsWith('-');
        const column = (descending ? text.slice(1) : text) as (typeof orderingFields)[number];
        if (!orderingFields.includes(column)) {
          context.addIssue({ code: 'custom', message: `Unknown ordering "${text}". Choose from: ${orderingFields.join(', ')}.` });
          return z.NEVER;
        }
        return { column, descending };
      }),
    ...pageQuery(10, 100),
  }),
);
