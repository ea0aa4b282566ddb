// SQL of schema operations beyond what materialize records: the migration's plan and schemas, its
// status moves, the history page and the one-running-migration lock. Every value is a bound parameter.
import { sql } from '#shared/db/sql.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { loadPatternEngineFor } from '#shared/text/pattern-engine.ts';
import type { PatternDialect } from '#shared/text/user-patterns.ts';
import type { OperationRow } from '../table-repository.ts';
import type { PlannedStep } from './migration-steps.ts';
import { pageWindowSql, plannedRows, plannedTotal, type ListTotal } from '#shared/db/counted-page.ts';
import type { CountMode } from '#shared/http/pagination.ts';

export type MigrationRow = OperationRow & {
  datatable_id: number | null;
  base_schema_hash: string | null;
  target_schema_hash: string | null;
  previous_schema: unknown;
  /** The dialect `previous_schema`'s patterns were read in (a rollback restores both). */
  previous_pattern_dialect: PatternDialect;
  target_schema: unknown;
  steps: PlannedStep[];
  error_code: string | null;
  created_by: number | null;
  applied_at: unknown;
  tombstones_swept_at: unknown;
};

const COLUMNS = sql.raw(`id, datatable_id, revision_id, operation_type, status, alembic_operations, executed_sql, rollback_sql,
  started_at, completed_at, duration_ms, parent_operation, error_message, table_name, base_schema_hash, target_schema_hash,
  previous_schema, previous_pattern_dialect, target_schema, steps, error_code, created_by, applied_at, tombstones_swept_at`);

/** Thrown when another migration of the same table is running; the state machine retries on it. */
export class MigrationBusyError extends Error {
  constructor() {
    super('Another schema migration of this table is running.');
    this.name = 'MigrationBusyError';
  }
}

export async function insertMigration(
  db: Queryable,
  site: Site,
  values: {
    tableId: number;
    tableName: string;
    revisionId: string;
    parent: string | null;
    steps: PlannedStep[];
    operations: unknown[];
    executedSql: string;
    rollbackSql: string;
    baseHash: string;
    targetHash: string;
    previousSchema: unknown;
    previousPatternDialect: PatternDialect;
    targetSchema: unknown;
    userId: number;
  },
): Promise<void> {
  await db.run(sql`insert into ${tenantTable(site, 'schema_operations')}
      (datatable_id, table_name, revision_id, operation_type, status, alembic_operations, executed_sql, rollback_sql, parent_operation,
       created_by, base_schema_hash, target_schema_hash, previous_schema, previous_pattern_dialect, target_schema, steps)
    values (${values.tableId}, ${values.tableName}, ${values.revisionId}, 'ALTER_TABLE', 'PENDING', ${JSON.stringify(values.operations)}::jsonb,
      ${values.executedSql}, ${values.rollbackSql}, ${values.parent}, ${values.userId}, ${values.baseHash}, ${values.targetHash},
      ${JSON.stringify(values.previousSchema)}::jsonb, ${values.previousPatternDialect}, ${JSON.stringify(values.targetSchema)}::jsonb, ${JSON.stringify(values.steps)}::jsonb)`);
}

export async function findMigration(
  db: Queryable,
  site: Site,
  revisionId: string,
  options: { forUpdate?: boolean } = {},
): Promise<MigrationRow | undefined> {
  const lock = options.forUpdate ? sql` for update` : sql``;
  const [row] = await db.rows<MigrationRow>(
    sql`select ${COLUMNS} from ${tenantTable(site, 'schema_operations')} where revision_id = ${revisionId}${lock}`,
  );
  // Its schemas are compiled synchronously (a rollback, the migration's steps): see pattern-engine.ts.
  if (row !== undefined) await loadPatternEngineFor([row.previous_schema, row.target_schema]);
  return row;
}

/** PENDING → IN_PROGRESS, refused while another migration of the table runs (the partial unique index). */
export async function claimMigration(db: Queryable, site: Site, revisionId: string): Promise<boolean> {
  try {
    const moved = await db.run(sql`update ${tenantTable(site, 'schema_operations')}
      set status = 'IN_PROGRESS', started_at = clock_timestamp() where revision_id = ${revisionId} and status = 'PENDING'`);
    return moved === 1;
  } catch (error) {
    if (error instanceof UniqueViolationError) throw new MigrationBusyError();
    throw error;
  }
}

export async function completeMigration(db: Queryable, site: Site, revisionId: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')}
    set status = 'SUCCESS', completed_at = clock_timestamp(), error_message = null, error_code = null,
      duration_ms = greatest(0, round(extract(epoch from clock_timestamp() - coalesce(started_at, created_at)) * 1000))::int
    where revision_id = ${revisionId} and status in ('PENDING', 'IN_PROGRESS')`);
}

export async function failMigration(db: Queryable, site: Site, revisionId: string, code: string, message: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')}
    set status = 'FAILED', completed_at = clock_timestamp(), error_message = ${message.slice(0, 4000)}, error_code = ${code.slice(0, 40)},
      duration_ms = greatest(0, round(extract(epoch from clock_timestamp() - coalesce(started_at, created_at)) * 1000))::int
    where revision_id = ${revisionId} and status in ('PENDING', 'IN_PROGRESS')`);
}

export async function markRolledBack(db: Queryable, site: Site, revisionId: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')} set status = 'ROLLED_BACK', rolled_back_at = clock_timestamp()
    where revision_id = ${revisionId}`);
}

/** The table's operations, newest first, and how many there are. */
/**
 * A page of a table's operations, newest first, with its total under `_count` (shared/db/counted-page.ts's
 * rules on a limit/offset window): the page reads one row more, so whether one follows is known in
 * every mode; `exact` counts beside it, `planned` asks the planner unless the page shows the end.
 */
export async function operationPage(
  db: Queryable,
  site: Site,
  tableId: number,
  window: { limit: number; offset: number; count: CountMode },
): Promise<{ total: ListTotal; rows: MigrationRow[] }> {
  const matches = sql`select 1 from ${tenantTable(site, 'schema_operations')} where datatable_id = ${tableId}`;
  const [read, counted] = await Promise.all([
    db.rows<MigrationRow>(sql`select ${COLUMNS} from ${tenantTable(site, 'schema_operations')}
      where datatable_id = ${tableId} order by id desc ${pageWindowSql(window.limit + 1, window.offset)}`),
    window.count === 'exact' ? db.rows<{ n: number }>(sql`select count(*)::int as n from (${matches}) m`) : undefined,
  ]);
  const more = read.length > window.limit;
  const rows = more ? read.slice(0, window.limit) : read;
  if (counted !== undefined) return { rows, total: { value: Number(counted[0]?.n ?? 0), estimated: false, more } };
  if (window.count === 'none') return { rows, total: { value: null, estimated: false, more } };
  const planned = await plannedTotal({ pageSize: window.limit, offset: window.offset }, read.length, () => plannedRows(db, matches));
  return { rows, total: { value: planned.total, estimated: planned.estimated, more } };
}

/**
 * The newest applied ALTER_TABLE of the table: the only one a rollback may reverse. Applied: SUCCESS,
 * or FAILED with its change still in place (a validation and its revert failed).
 */
export async function latestAppliedMigration(db: Queryable, site: Site, tableId: number): Promise<string | undefined> {
  const [row] = await db.rows<{ revision_id: string }>(sql`select revision_id from ${tenantTable(site, 'schema_operations')}
    where datatable_id = ${tableId} and operation_type = 'ALTER_TABLE' and (status = 'SUCCESS' or (status = 'FAILED' and applied_at is not null))
    order by id desc limit 1`);
  return row?.revision_id;
}

/** Inside the migration's transaction: its change is in, whatever happens to the later steps. */
export async function markApplied(db: Queryable, site: Site, revisionId: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')} set applied_at = clock_timestamp() where revision_id = ${revisionId}`);
}

/** A reverted migration: its change is out again (inside the revert's transaction). */
export async function markUnapplied(db: Queryable, site: Site, revisionId: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')} set applied_at = null where revision_id = ${revisionId}`);
}

/** Sets the table's schema, hash and pattern dialect (inside the migration's transaction). */
export async function setTableSchema(
  db: Queryable,
  site: Site,
  tableId: number,
  values: { schema: unknown; hash: string; patternDialect: PatternDialect },
  userId: number | null,
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'datatables')}
    set json_schema = ${JSON.stringify(values.schema)}::jsonb, schema_hash = ${values.hash}, pattern_dialect = ${values.patternDialect}, modified_by = coalesce(${userId}, modified_by), updated_at = now()
    where id = ${tableId}`);
}
