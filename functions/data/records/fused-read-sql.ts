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
}

/**
 * The read's value when the remembered table row still holds, else null: for rows, one JSON text of
 * column-wise arrays (`[[records], [totals]]`, cheaper for PostgreSQL to build than an object per
 * row); for an answer, its text ('' when it has none).
 */
export function guardedReadSql(table: RememberedTableRow, read: { answer: SQL } | { statement: SQL; columns: readonly string[] }): SQL {
  const value =
    'answer' in read
      ? sql`coalesce((${read.answer}), '')`
      : sql`(select json_build_array(${sql.join(
          read.columns.map((column) => sql`json_agg(q.${sql.identifier(column)})`),
          sql`, `,
        )})::text from (${read.statement}) q)`;
  return sql`case when exists(
      select 1 from ${tenantTable(table, 'datatables')} t join ${tenantTable(table, 'apps')} a on a.id = t.app_id
      where t.id = ${table.tableId} and t.schema_hash = ${table.schemaHash} and t.is_materialized
        and a.deleted_at is null and a.slug = ${table.appSlug} and t.name = ${table.name})
    then ${value} end`;
}
