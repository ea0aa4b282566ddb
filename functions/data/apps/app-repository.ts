// SQL of a site's apps and datasources. Every table is named through `tenantTable`, so the schema
// comes from the resolved site record only; every value is a bound parameter.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';

export type AppRow = {
  id: number;
  name: string;
  slug: string;
  description: string;
  is_active: boolean;
  deleted_at: unknown;
  datasource_count: number;
  table_count: number;
  created_at: unknown;
  updated_at: unknown;
  created_by: number | null;
  modified_by: number | null;
};

export type DatasourceRow = {
  id: number;
  app_id: number;
  app_name: string;
  app_slug: string;
  name: string;
  slug: string;
  provider_type: string;
  provider_config: Record<string, unknown>;
  description: string;
  is_active: boolean;
  table_count: number;
  materialized_count: number;
  created_at: unknown;
  updated_at: unknown;
  created_by: number | null;
  modified_by: number | null;
};

function appSelect(site: Site) {
  return sql`select a.id, a.name, a.slug, a.description, a.is_active, a.deleted_at, a.created_at, a.updated_at,
      a.created_by, a.modified_by,
      (select count(*)::int from ${tenantTable(site, 'datasources')} d where d.app_id = a.id) as datasource_count,
      (select count(*)::int from ${tenantTable(site, 'datatables')} t where t.app_id = a.id) as table_count
    from ${tenantTable(site, 'apps')} a`;
}

export function listActiveApps(db: Queryable, site: Site): Promise<AppRow[]> {
  return db.rows<AppRow>(sql`${appSelect(site)} where a.deleted_at is null order by a.name, a.id`);
}

export async function findApp(db: Queryable, site: Site, slug: string, options: { deleted?: boolean } = {}): Promise<AppRow | undefined> {
  const state = options.deleted ? sql`a.deleted_at is not null` : sql`a.deleted_at is null`;
  const [row] = await db.rows<AppRow>(sql`${appSelect(site)} where a.slug = ${slug} and ${state}`);
  return row;
}

export async function slugsLike(db: Queryable, site: Site, table: 'apps' | 'datasources', base: string, appId?: number): Promise<string[]> {
  const scope = appId === undefined ? sql`true` : sql`app_id = ${appId}`;
  const rows = await db.rows<{ slug: string }>(
    sql`select slug from ${tenantTable(site, table)} where ${scope} and (slug = ${base} or slug like ${`${base}-%`})`,
  );
  return rows.map((row) => row.slug);
}

export async function insertApp(
  db: Queryable,
  site: Site,
  values: { name: string; slug: string; description: string; userId: number },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    insert into ${tenantTable(site, 'apps')} (name, slug, description, created_by, modified_by)
    values (${values.name}, ${values.slug}, ${values.description}, ${values.userId}, ${values.userId}) returning id`);
  return row!.id;
}

export async function updateApp(
  db: Queryable,
  site: Site,
  id: number,
  values: { name: string; description: string; userId: number },
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'apps')}
    set name = ${values.name}, description = ${values.description}, modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

/** Soft delete or restore: the app, its datasources and its datatables change state together. */
export async function setAppActive(db: Queryable, site: Site, id: number, active: boolean, userId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(sql`update ${tenantTable(site, 'apps')}
      set is_active = ${active}, deleted_at = ${active ? null : sql`now()`}, modified_by = ${userId}, updated_at = now()
      where id = ${id}`);
    await tx.run(sql`update ${tenantTable(site, 'datasources')} set is_active = ${active}, updated_at = now() where app_id = ${id}`);
    await tx.run(sql`update ${tenantTable(site, 'datatables')} set is_active = ${active}, updated_at = now() where app_id = ${id}`);
  });
}

function datasourceSelect(site: Site) {
  return sql`select d.id, d.app_id, a.name as app_name, a.slug as app_slug, d.name, d.slug, d.provider_type,
      d.provider_config, d.description, d.is_active, d.created_at, d.updated_at, d.created_by, d.modified_by,
      (select count(*)::int from ${tenantTable(site, 'datatables')} t where t.data_source_id = d.id) as table_count,
      (select count(*)::int from ${tenantTable(site, 'datatables')} t where t.data_source_id = d.id and t.is_materialized) as materialized_count
    from ${tenantTable(site, 'datasources')} d join ${tenantTable(site, 'apps')} a on a.id = d.app_id`;
}

export function listDatasources(db: Queryable, site: Site, appId: number): Promise<DatasourceRow[]> {
  return db.rows<DatasourceRow>(sql`${datasourceSelect(site)} where d.app_id = ${appId} order by d.name, d.id`);
}

export async function findDatasource(db: Queryable, site: Site, appId: number, slug: string): Promise<DatasourceRow | undefined> {
  const [row] = await db.rows<DatasourceRow>(sql`${datasourceSelect(site)} where d.app_id = ${appId} and d.slug = ${slug}`);
  return row;
}

export interface DatasourceValues {
  name: string;
  slug: string;
  providerType: string;
  providerConfig: Record<string, unknown>;
  description: string;
  userId: number;
}

export async function insertDatasource(db: Queryable, site: Site, appId: number, values: DatasourceValues): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    insert into ${tenantTable(site, 'datasources')}
      (app_id, name, slug, provider_type, provider_config, description, created_by, modified_by)
    values (${appId}, ${values.name}, ${values.slug}, ${values.providerType}, ${JSON.stringify(values.providerConfig)}::jsonb,
      ${values.description}, ${values.userId}, ${values.userId})
    returning id`);
  return row!.id;
}

export async function updateDatasource(db: Queryable, site: Site, id: number, values: DatasourceValues): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'datasources')}
    set name = ${values.name}, slug = ${values.slug}, provider_type = ${values.providerType},
      provider_config = ${JSON.stringify(values.providerConfig)}::jsonb, description = ${values.description},
      modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

/** Whether the datasource's `provider_config` allows migrations that lose data (`allow_data_loss`). */
export async function datasourceAllowsDataLoss(db: Queryable, site: Site, datasourceId: number): Promise<boolean> {
  const [row] = await db.rows<{ allowed: boolean }>(sql`select coalesce((provider_config ->> 'allow_data_loss')::boolean, false) as allowed
    from ${tenantTable(site, 'datasources')} where id = ${datasourceId}`);
  return row?.allowed === true;
}

export async function deleteDatasource(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'datasources')} where id = ${id}`);
}
