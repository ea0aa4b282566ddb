// SQL of a migration's execution that reads the catalog and the datatable row: the table's current
// schema hash (under its row lock), the indexes and constraints a migration left, the INVALID
// indexes of failed migrations. Identifiers come from the site record and the operation row.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { type SchemaScopedSite as Site, tenantTable } from '#shared/db/sql-identifiers.ts';

/** The table's schema hash; `forUpdate` takes the datatable's row lock, which serialises schema changes. */
export async function currentHash(db: Queryable, site: Site, tableId: number, forUpdate = false): Promise<string | undefined> {
  const lock = forUpdate ? sql` for update` : sql``;
  const [row] = await db.rows<{ schema_hash: string }>(
    sql`select schema_hash from ${tenantTable(site, 'datatables')} where id = ${tableId}${lock}`,
  );
  return row?.schema_hash;
}

/** Whether an index of this name exists on this physical table (never another table's index of the name). */
export async function indexOnTable(db: Queryable, site: Site, tableName: string, indexName: string): Promise<boolean> {
  const found = await db.rows<{ n: number }>(sql`select 1 as n from pg_index i
    join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_namespace s on s.oid = c.relnamespace
    where s.nspname = ${site.schemaName} and c.relname = ${indexName} and t.relname = ${tableName}`);
  return found.length > 0;
}

/** Of `names`, the constraints of the table that are NOT VALID, and those of `transient` that exist at all. */
export async function unvalidatedConstraints(
  db: Queryable,
  site: Site,
  tableName: string,
  names: string[],
  transient: string[],
): Promise<string[]> {
  const rows = await db.rows<{ conname: string }>(sql`select c.conname from pg_constraint c
    join pg_class t on t.oid = c.conrelid join pg_namespace s on s.oid = t.relnamespace
    where s.nspname = ${site.schemaName} and t.relname = ${tableName} and c.conname = any(${sql.param(names)}::text[])
      and (not c.convalidated or c.conname = any(${sql.param(transient)}::text[]))
    order by c.conname`);
  return rows.map((r) => r.conname);
}

/** INVALID indexes that CONCURRENTLY steps of failed, unapplied migrations left on their tables. */
export async function invalidIndexesOfFailedMigrations(db: Queryable, site: Site, tableId?: number): Promise<string[]> {
  const table = tableId === undefined ? sql`` : sql` and o.datatable_id = ${tableId}`;
  const rows = await db.rows<{ index_name: string }>(sql`select distinct ic.relname as index_name
    from ${tenantTable(site, 'schema_operations')} o
    cross join lateral jsonb_array_elements(o.steps) as step
    join pg_class ic on ic.relname = step ->> 'object'
    join pg_index i on i.indexrelid = ic.oid and not i.indisvalid
    join pg_class t on t.oid = i.indrelid and t.relname = o.table_name
    join pg_namespace s on s.oid = ic.relnamespace and s.nspname = ${site.schemaName}
    where o.status = 'FAILED' and o.applied_at is null and step ->> 'phase' = 'concurrent'${table}`);
  return rows.map((r) => r.index_name);
}
