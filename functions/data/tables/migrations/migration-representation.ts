// The wire shapes of the schema-evolution endpoints (data-service spec, Schema evolution), for the
// OpenAPI document and the test-time response check. The answers are built in migration-service.ts
// and rollback-service.ts; schema operation records are table-representation.ts's.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { schemaOperationSchema } from '../table-representation.ts';

/** preview-changes: each planned step, whether the whole change is safe, and the preflight's findings. */
export const changePreviewSchema = lazySchema(() =>
  z
    .strictObject({
      operations: z.array(
        z.strictObject({
          type: z.string(),
          column: z.string().nullable(),
          sql: z.string(),
          is_safe: z.boolean(),
          class: z.string(),
          phase: z.enum(['transaction', 'concurrent']),
          rollback_sql: z.string(),
          warning: z.string().optional(),
          preflight: z
            .strictObject({
              violating_rows: z.number().int(),
              sample_ids: z.array(z.unknown()),
              describes: z.string(),
              blocking: z.boolean(),
            })
            .optional(),
        }),
      ),
      is_safe: z.boolean(),
      warnings: z.array(z.string()),
      estimated_duration_ms: z.number(),
    })
    .meta({ id: 'SchemaChangePreview' }),
);

export const schemaValidationSchema = lazySchema(() =>
  z.strictObject({ valid: z.boolean(), errors: z.array(z.string()), warnings: z.array(z.string()) }).meta({ id: 'SchemaValidation' }),
);

export const operationHistorySchema = lazySchema(() =>
  z
    .strictObject({
      count: z.number().int(),
      next: z.string().nullable(),
      previous: z.string().nullable(),
      results: z.array(schemaOperationSchema()),
    })
    .meta({ id: 'SchemaOperationHistory' }),
);

export const rollbackResultSchema = lazySchema(() =>
  z
    .strictObject({
      success: z.literal(true),
      message: z.string(),
      operations_reversed: z.number().int(),
      new_status: z.literal('ROLLED_BACK'),
    })
    .meta({ id: 'SchemaRollback' }),
);
