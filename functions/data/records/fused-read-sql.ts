// The statement of a fused record read (fused-reads.ts): the read's value, guarded by the table row
// it was compiled for, so a read made from a stale guess answers null instead of rows of another shape.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';

/** The table row a read was compiled for, as remembered. */
export interface RememberedTableRow {
  schemaName: string;
  tableId: number;
  schemaHash: string;
  appSlug: string;
  name: string;
  /**
   * For a read compiled from the relations among the app's tables: `appTablesFingerprint` of them
   * as remembered, so a change to any of them (not only this one) makes the guess stale.
   */
  appTables?: string;
}

/** The fingerprint of an app's table rows that relations are compiled from, as the guard computes it. */
export function appTablesFingerprint(
  rows: ReadonlyArray<{
    id: number;
    name: string;
    physical_table_name: string;
    schema_hash: string;
    is_materialized: boolean;
    is_active: boolean;
  }>,
): string {
  return rows
    .filter((row) => row.is_materialized && row.is_active)
    .sort((a, b) => a.id - b.id)
    .map((row) => `${row.id}:${row.name}:${row.physical_table_name}:${row.schema_hash}`)
    .join(',');
}

function appTablesGuard(table: RememberedTableRow): SQL {
  if (table.appTables === undefined) return sql``;
  return sql`and (select coalesce(string_agg(o.id::text || ':' || o.name || ':' || o.physical_table_name || ':' || o.schema_hash, ',' order by o.id), '')
      from ${tenantTable(table, 'datatables')} o where o.app_id = a.id and o.is_materialized and o.is_active) = ${table.appTables}`;
}

/**
 * The read's value when the remembered table row still holds, else null: for rows, one JSON text of
 * column-wise arrays (`[[records], [totals]]`, cheaper for PostgreSQL to build than an object per
 * row); for an answer, its text ('' when it has none). The guard is two lookups by key, not a join:
 * a list whose plan PostgreSQL makes anew on every run (a range filter) plans the guard each time
 * too, and the join cost 0.14 ms of planning where the lookups cost 0.04.
 */
export function guardedReadSql(table: RememberedTableRow, read: { answer: SQL } | { statement: SQL; columns: readonly string[] }): SQL {
  const value =
    'answer' in read
      ? sql`coalesce((${read.answer}), '')`
      : sql`(select json_build_array(${sql.join(
          read.columns.map((column) => sql`json_agg(q.${sql.identifier(column)})`),
          sql`, `,
        )})::text from (${read.statement}) q)`;
  return sql`case when (
      select t.schema_hash = ${table.schemaHash} and t.is_materialized and t.name = ${table.name}
        and (select a.deleted_at is null and a.slug = ${table.appSlug} ${appTablesGuard(table)}
          from ${tenantTable(table, 'apps')} a where a.id = t.app_id)
      from ${tenantTable(table, 'datatables')} t where t.id = ${table.tableId})
    then ${value} end`;
}
