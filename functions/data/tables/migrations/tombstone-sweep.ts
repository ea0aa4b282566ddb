// The sweep of dropped columns: a migration hides a dropped column under a tombstone name so that a
// rollback within the retention window restores its data; once the window has passed, the sweep
// drops the tombstones of successful migrations and marks them swept (a later rollback then
// recreates the column empty from its stored definition).
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { PlannedStep } from './migration-steps.ts';

export interface SweepResult {
  operations: number;
  columns: number;
  /** Operations whose tombstones could not be dropped (another table's foreign key, a lock): kept for the next sweep. */
  failed: { revision_id: string; error: string }[];
}

/** Sweeps the expired tombstones of one tenant schema, or of one table when `tableId` is given. */
export async function sweepTombstones(
  db: Queryable,
  site: { schemaName: string },
  settings: { tombstoneRetentionMs: number; lockTimeoutMs: number; ddlTimeoutMs: number },
  tableId?: number,
): Promise<SweepResult> {
  const table = tableId === undefined ? sql`` : sql` and datatable_id = ${tableId}`;
  const due = await db.rows<{
    revision_id: string;
    steps: PlannedStep[];
  }>(sql`select revision_id, steps from ${tenantTable(site, 'schema_operations')}
    where status = 'SUCCESS' and tombstones_swept_at is null and applied_at is not null
      and applied_at <= clock_timestamp() - make_interval(secs => ${settings.tombstoneRetentionMs / 1000})
      and steps @> '[{"type": "drop_column"}]'::jsonb${table}
    order by id`);
  const result: SweepResult = { operations: 0, columns: 0, failed: [] };
  for (const op of due) {
    const statements = op.steps.flatMap((step) => step.tombstone?.sweep_sql ?? []);
    try {
      await db.transaction(
        async (tx) => {
          for (const text of statements) await tx.run(sql.raw(text));
          await tx.run(
            sql`update ${tenantTable(site, 'schema_operations')} set tombstones_swept_at = clock_timestamp() where revision_id = ${op.revision_id}`,
          );
        },
        { statementTimeoutMs: settings.ddlTimeoutMs, lockTimeoutMs: settings.lockTimeoutMs },
      );
      result.operations += 1;
      result.columns += statements.length;
    } catch (error) {
      const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      result.failed.push({ revision_id: op.revision_id, error: message });
    }
  }
  return result;
}

/** Every site's schema, for the scheduled sweep. */
export async function siteSchemas(db: Queryable): Promise<string[]> {
  return (await db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites order by id`)).map((r) => r.schema_name);
}
