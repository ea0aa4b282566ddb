// SQL of a site's datatables and schema operations. Tenant tables are named through `tenantTable`;
// every value is a bound parameter.
import { randomBytes } from 'node:crypto';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import type { SQL } from 'drizzle-orm';
import { loadPatternEngineFor } from '#shared/text/pattern-engine.ts';
import type { PatternDialect } from '#shared/text/user-patterns.ts';

export type DatatableRow = {
  id: number;
  app_id: number;
  data_source_id: number;
  datasource_name: string;
  datasource_slug: string;
  provider_type: string;
  app_name: string;
  app_slug: string;
  name: string;
  description: string;
  json_schema: unknown;
  physical_table_name: string;
  schema_hash: string;
  /** How the schema's patterns are read: `ecmascript` for schemas saved before XML Schema's dialect (tenant migration 14). */
  pattern_dialect: PatternDialect;
  is_materialized: boolean;
  is_active: boolean;
  created_at: unknown;
  updated_at: unknown;
  created_by: number | null;
  modified_by: number | null;
};

export type OperationRow = {
  id: number;
  revision_id: string;
  operation_type: string;
  status: string;
  alembic_operations: unknown;
  executed_sql: string;
  rollback_sql: string;
  started_at: unknown;
  completed_at: unknown;
  duration_ms: number | null;
  parent_operation: string | null;
  error_message: string | null;
  table_name: string;
};

function tableSelect(site: Site) {
  return sql`select t.id, t.app_id, t.data_source_id, d.name as datasource_name, d.slug as datasource_slug, d.provider_type,
      a.name as app_name, a.slug as app_slug, t.name, t.description, t.json_schema, t.physical_table_name, t.schema_hash,
      t.pattern_dialect, t.is_materialized, t.is_active, t.created_at, t.updated_at, t.created_by, t.modified_by
    from ${tenantTable(site, 'datatables')} t
    join ${tenantTable(site, 'datasources')} d on d.id = t.data_source_id
    join ${tenantTable(site, 'apps')} a on a.id = t.app_id`;
}

/**
 * Rows of tables as `query` selects them, the pattern engine loaded when a schema among them declares
 * a pattern: callers compile these schemas synchronously (shared/text/pattern-engine.ts).
 */
async function tableRows<Row extends DatatableRow>(db: Queryable, query: SQL): Promise<Row[]> {
  const rows = await db.rows<Row>(query);
  await loadPatternEngineFor(rows.map((row) => row.json_schema));
  return rows;
}

export function tablesOfDatasource(db: Queryable, site: Site, datasourceId: number): Promise<DatatableRow[]> {
  return tableRows<DatatableRow>(db, sql`${tableSelect(site)} where t.data_source_id = ${datasourceId} order by t.name`);
}

/** The source table of the reference `name` in an active app (import-reference), if there is one. */
export async function findReferencedTable(db: Queryable, site: Site, appSlug: string, name: string): Promise<DatatableRow | undefined> {
  const [row] = await tableRows<DatatableRow>(
    db,
    sql`${tableSelect(site)} where a.deleted_at is null and t.id = (
      select r.source_table_id from ${tenantTable(site, 'datatable_references')} r join ${tenantTable(site, 'apps')} ra on ra.id = r.app_id
      where ra.slug = ${appSlug} and ra.deleted_at is null and r.name = ${name})`,
  );
  return row;
}

/** A reference (import-reference) of an app: its source table's row, with the name and app it is seen under. */
export type ReferenceRow = DatatableRow & { reference_name: string; target_app_slug: string; target_app_name: string };

/**
 * The references of an active app whose source's app is active too, by name (or the one named
 * `name`): another site's tables are in another schema, never here.
 */
export function referencesOfApp(db: Queryable, site: Site, appSlug: string, name?: string): Promise<ReferenceRow[]> {
  return tableRows<ReferenceRow>(
    db,
    sql`select s.*, r.name as reference_name, ra.slug as target_app_slug, ra.name as target_app_name
    from (${tableSelect(site)} where a.deleted_at is null) s
    join ${tenantTable(site, 'datatable_references')} r on r.source_table_id = s.id
    join ${tenantTable(site, 'apps')} ra on ra.id = r.app_id
    where ra.slug = ${appSlug} and ra.deleted_at is null ${name === undefined ? sql`` : sql`and r.name = ${name}`}
    order by r.name`,
  );
}

/** Whether an app (by id) has a reference named `name`. */
export async function referenceNameTaken(db: Queryable, site: Site, appId: number, name: string): Promise<boolean> {
  const [row] = await db.rows<{ taken: boolean }>(sql`select exists(select 1 from ${tenantTable(site, 'datatable_references')}
    where app_id = ${appId} and name = ${name}) as taken`);
  return row?.taken === true;
}

/** Removes the reference `name` of an active app (its row is all a reference is); whether there was one. */
export async function deleteReference(db: Queryable, site: Site, appSlug: string, name: string): Promise<boolean> {
  const rows = await db.rows<{ id: number }>(sql`delete from ${tenantTable(site, 'datatable_references')} r
    using ${tenantTable(site, 'apps')} a where a.id = r.app_id and a.slug = ${appSlug} and a.deleted_at is null and r.name = ${name}
    returning r.id`);
  return rows.length > 0;
}

/** The references that hold a table (import-reference), each as `app/name`. */
export async function referencesHolding(db: Queryable, site: Site, tableId: number): Promise<string[]> {
  const rows = await db.rows<{ reference: string }>(sql`select a.slug || '/' || r.name as reference
    from ${tenantTable(site, 'datatable_references')} r join ${tenantTable(site, 'apps')} a on a.id = r.app_id
    where r.source_table_id = ${tableId} order by 1`);
  return rows.map((row) => row.reference);
}

/**
 * Tables of the site (any app, deleted ones too: their physical tables stay) that may own one of
 * `names`: by their own physical name, or, for a hierarchy, by its edges table, which is
 * `<node>_edges` (`nodes`) or, past 63 characters, a hashed form only a long node name gives.
 */
export function tablesClaimingPhysicalNames(db: Queryable, site: Site, names: string[], nodes: string[]): Promise<DatatableRow[]> {
  return tableRows<DatatableRow>(
    db,
    sql`${tableSelect(site)} where t.physical_table_name = any(${sql.param(names)}::text[])
      or (t.json_schema->>'hierarchy' = 'true'
        and (t.physical_table_name = any(${sql.param(nodes)}::text[]) or length(t.physical_table_name) > 56))
      order by t.id`,
  );
}

/** Every table of an active app, by the app's slug (none when the app is missing or deleted). */
export function tablesOfActiveApp(db: Queryable, site: Site, appSlug: string): Promise<DatatableRow[]> {
  return tableRows<DatatableRow>(db, sql`${tableSelect(site)} where a.slug = ${appSlug} and a.deleted_at is null order by t.name`);
}

export function tablesOfApp(db: Queryable, site: Site, appId: number): Promise<DatatableRow[]> {
  return tableRows<DatatableRow>(db, sql`${tableSelect(site)} where t.app_id = ${appId} order by t.name`);
}

/** A table of an active app, found by app slug and table name in one query (the record path). */
export async function findTableOfActiveApp(db: Queryable, site: Site, appSlug: string, name: string): Promise<DatatableRow | undefined> {
  const [row] = await tableRows<DatatableRow>(
    db,
    sql`${tableSelect(site)} where a.slug = ${appSlug} and a.deleted_at is null and t.name = ${name}`,
  );
  return row;
}

export async function findTable(
  db: Queryable,
  site: Site,
  appId: number,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<DatatableRow | undefined> {
  const lock = options.forUpdate ? sql` for update of t` : sql``;
  const [row] = await tableRows<DatatableRow>(db, sql`${tableSelect(site)} where t.app_id = ${appId} and t.name = ${name}${lock}`);
  return row;
}

export async function insertTable(
  db: Queryable,
  site: Site,
  values: {
    appId: number;
    datasourceId: number;
    name: string;
    description: string;
    schema: unknown;
    physicalName: string;
    hash: string;
    userId: number;
  },
): Promise<void> {
  await db.run(sql`insert into ${tenantTable(site, 'datatables')}
      (app_id, data_source_id, name, description, json_schema, physical_table_name, schema_hash, created_by, modified_by)
    values (${values.appId}, ${values.datasourceId}, ${values.name}, ${values.description}, ${JSON.stringify(values.schema)}::jsonb,
      ${values.physicalName}, ${values.hash}, ${values.userId}, ${values.userId})`);
}

export async function updateTable(
  db: Queryable,
  site: Site,
  id: number,
  values: { description: string; schema: unknown; hash: string; patternDialect: PatternDialect; userId: number },
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'datatables')}
    set description = ${values.description}, json_schema = ${JSON.stringify(values.schema)}::jsonb, schema_hash = ${values.hash},
      pattern_dialect = ${values.patternDialect}, modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

export async function markMaterialized(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'datatables')} set is_materialized = true, updated_at = now() where id = ${id}`);
}

export async function deleteTableRow(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'datatables')} where id = ${id}`);
}

export function newRevisionId(): string {
  return randomBytes(6).toString('hex');
}

export async function lastRevision(db: Queryable, site: Site, tableId: number): Promise<string | null> {
  const [row] = await db.rows<{ revision_id: string }>(sql`select revision_id from ${tenantTable(site, 'schema_operations')}
    where datatable_id = ${tableId} order by id desc limit 1`);
  return row?.revision_id ?? null;
}

export async function insertOperation(
  db: Queryable,
  site: Site,
  values: {
    tableId: number;
    tableName: string;
    revisionId: string;
    type: string;
    operations: unknown;
    executedSql: string;
    rollbackSql: string;
    parent: string | null;
    userId: number;
  },
): Promise<void> {
  await db.run(sql`insert into ${tenantTable(site, 'schema_operations')}
      (datatable_id, table_name, revision_id, operation_type, status, alembic_operations, executed_sql, rollback_sql, parent_operation, created_by)
    values (${values.tableId}, ${values.tableName}, ${values.revisionId}, ${values.type}, 'PENDING', ${JSON.stringify(values.operations)}::jsonb,
      ${values.executedSql}, ${values.rollbackSql}, ${values.parent}, ${values.userId})`);
}

export async function startOperation(db: Queryable, site: Site, revisionId: string): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')} set status = 'IN_PROGRESS', started_at = clock_timestamp()
    where revision_id = ${revisionId}`);
}

export async function finishOperation(
  db: Queryable,
  site: Site,
  revisionId: string,
  status: 'SUCCESS' | 'FAILED',
  errorMessage?: string,
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'schema_operations')}
    set status = ${status}, completed_at = clock_timestamp(), error_message = ${errorMessage ?? null},
      duration_ms = greatest(0, round(extract(epoch from clock_timestamp() - started_at) * 1000))::int
    where revision_id = ${revisionId}`);
}

export async function findOperation(db: Queryable, site: Site, revisionId: string): Promise<OperationRow | undefined> {
  const [row] = await db.rows<OperationRow>(sql`select id, revision_id, operation_type, status, alembic_operations, executed_sql,
      rollback_sql, started_at, completed_at, duration_ms, parent_operation, error_message, table_name
    from ${tenantTable(site, 'schema_operations')} where revision_id = ${revisionId}`);
  return row;
}
