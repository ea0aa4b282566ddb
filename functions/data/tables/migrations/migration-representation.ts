// The wire shapes of the schema-evolution endpoints (data-service spec, Schema evolution), for the
// OpenAPI document and the test-time response check. The answers are built in migration-service.ts
// and rollback-service.ts; schema operation records are table-representation.ts's.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { ListTotal } from '#shared/db/counted-page.ts';
import type { CountMode } from '#shared/http/pagination.ts';
import { operationRecord, schemaOperationSchema } from '../table-representation.ts';
import type { MigrationRow } from './operation-repository.ts';

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
      count: z.number().int().nullable(),
      total_is_estimate: z.boolean().optional(),
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

/**
 * The history page as Envelope C on a limit/offset window: `count` as `_count` gives it (null under
 * `none`, with `total_is_estimate` under `planned`); `next` from the exact total, else from the
 * look-ahead row; `previous` never past the last page an exact total shows.
 */
export function historyEnvelope(
  page: { rows: MigrationRow[]; total: ListTotal },
  window: { limit: number; offset: number; count: CountMode },
  urlWith: (changes: Record<string, string | undefined>) => string,
) {
  const { limit, offset } = window;
  const exact = page.total.value !== null && !page.total.estimated ? page.total.value : undefined;
  const hasNext = exact !== undefined ? offset + limit < exact : page.total.more;
  const previousOffset = Math.max(0, exact !== undefined ? Math.min(offset - limit, exact - limit) : offset - limit);
  return {
    count: page.total.value,
    ...(window.count === 'planned' ? { total_is_estimate: page.total.estimated } : {}),
    next: hasNext ? urlWith({ limit: String(limit), offset: String(offset + limit) }) : null,
    previous: offset > 0 ? urlWith({ limit: String(limit), offset: previousOffset === 0 ? undefined : String(previousOffset) }) : null,
    results: page.rows.map(operationRecord),
  };
}
