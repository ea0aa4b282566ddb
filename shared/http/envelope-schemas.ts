// The spec's envelopes as zod schemas, for the OpenAPI document: what envelopes.ts builds and
// answers.ts applies, described field by field. Only the docs group's generator reads this module.
import * as z from 'zod';
import type { EnvelopeKind, ErrorStyle } from './route.ts';

const fieldErrors = z.record(z.string(), z.array(z.string())).meta({ description: 'Messages per field' });

/** The spec's error envelopes, one per error style (shared/http/envelopes.ts errorBody). */
export const errorSchemas: Record<ErrorStyle, z.ZodType> = {
  generic: z
    .object({
      status: z.literal('error'),
      code: z.string(),
      message: z.string(),
      detail: z.string().optional(),
      errors: fieldErrors.optional(),
      data: z.unknown().optional(),
    })
    .meta({ id: 'ErrorEnvelope', description: 'The generic error envelope' }),
  'success-flag': z
    .object({
      success: z.literal(false),
      message: z.string(),
      status_code: z.number().int(),
      code: z.string(),
      errors: fieldErrors.optional(),
    })
    .meta({ id: 'SuccessFlagError', description: 'The error envelope of the areas that answer `{success: false, ...}`' }),
  data: z
    .object({
      error: z.string(),
      code: z.string(),
      detail: z.string().optional(),
      details: fieldErrors.optional(),
    })
    .meta({ id: 'DataError', description: "The data service's error shape" }),
};

const paginationA = z.object({ page: z.number().int(), page_size: z.number().int(), has_next: z.boolean(), has_previous: z.boolean() });

/**
 * The success body an envelope makes of `data` (answers.ts), in its page form where `paged`;
 * undefined for `none` (no JSON body).
 */
export function successSchema(envelope: EnvelopeKind, data: z.ZodType, paged: boolean): z.ZodType | undefined {
  switch (envelope) {
    case 'A':
      return paged
        ? z.object({
            status: z.literal('success'),
            message: z.string(),
            data: z.array(data),
            total: z.number().int(),
            pagination: paginationA,
          })
        : z.object({ status: z.literal('success'), message: z.string(), data });
    case 'B':
      return paged
        ? z.object({
            success: z.literal(true),
            message: z.string(),
            data: z.array(data),
            total: z.number().int(),
            page: z.number().int(),
            page_size: z.number().int(),
            total_pages: z.number().int(),
            has_next: z.boolean().optional().meta({ description: 'Under `_count=planned|none`: whether a further page exists' }),
          })
        : z.object({
            success: z.boolean(),
            message: z.string(),
            status_code: z.number().int(),
            data: data.optional(),
            total: z.number().int().optional(),
          });
    case 'C':
      return z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(data) });
    case 'bare':
      return data;
    default:
      return undefined;
  }
}
