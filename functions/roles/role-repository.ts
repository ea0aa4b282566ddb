// SQL of a site's app roles and site roles. Every table is named through `tenantTable`, so the
// schema comes from the resolved site record only; every value is a bound parameter, and ordering
// columns come from fixed lists.
import { countedPage, type CountedPage } from '#shared/db/counted-page.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export type Page<T> = CountedPage<T>;

export interface AppRef {
  id: number;
  name: string;
  slug: string;
}

export interface AppRoleRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  app_id: number;
  app_name: string;
  app_slug: string;
  parent_id: number | null;
  parent_role_slug: string | null;
  is_parent: boolean;
  permissions: string[];
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

export interface SiteRoleRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  created_at: Date | string;
  updated_at: Date | string;
  [column: string]: unknown;
}

export interface Ordering {
  column: 'name' | 'created_at' | 'updated_at';
  descending: boolean;
}

export interface ListFilter {
  search?: string;
  ordering: Ordering;
  page: PageRequest;
}

function orderBy(alias: string, ordering: Ordering): SQL {
  return sql.raw(`${alias}.${ordering.column} ${ordering.descending ? 'desc' : 'asc'}, ${alias}.id asc`);
}

export async function findApp(db: Queryable, site: Site, slug: string): Promise<AppRef | undefined> {
  const [row] = await db.rows<AppRef & Record<string, unknown>>(
    sql`select id, name, slug from ${tenantTable(site, 'apps')} where slug = ${slug} and deleted_at is null`,
  );
  return row;
}

function appRoleSelect(site: Site): SQL {
  const roles = tenantTable(site, 'app_roles');
  return sql`select r.id, r.name, r.slug, r.description, r.app_id, a.name as app_name, a.slug as app_slug,
      r.parent_id, p.slug as parent_role_slug,
      exists(select 1 from ${roles} c where c.parent_id = r.id) as is_parent, r.permissions, r.created_at, r.updated_at
    from ${roles} r
    join ${tenantTable(site, 'apps')} a on a.id = r.app_id
    left join ${roles} p on p.id = r.parent_id`;
}

export async function listAppRoles(db: Queryable, site: Site, appId: number, filter: ListFilter): Promise<Page<AppRoleRow>> {
  const search =
    filter.search === undefined
      ? sql`true`
      : sql`(r.name ilike ${containsPattern(filter.search)} or r.description ilike ${containsPattern(filter.search)})`;
  const where = sql`r.app_id = ${appId} and ${search}`;
  return countedPage(
    db,
    filter.page,
    ({ window }) => db.rows<AppRoleRow>(sql`${appRoleSelect(site)} where ${where} order by ${orderBy('r', filter.ordering)} ${window}`),
    sql`select 1 from ${tenantTable(site, 'app_roles')} r where ${where}`,
  );
}

export async function findAppRole(db: Queryable, site: Site, appId: number, slug: string): Promise<AppRoleRow | undefined> {
  const [row] = await db.rows<AppRoleRow>(sql`${appRoleSelect(site)} where r.app_id = ${appId} and r.slug = ${slug}`);
  return row;
}

export function appRolesBySlugs(db: Queryable, site: Site, slugs: readonly string[]): Promise<AppRoleRow[]> {
  if (slugs.length === 0) return Promise.resolve([]);
  return db.rows<AppRoleRow>(sql`${appRoleSelect(site)} where r.slug = any(${sql.param([...slugs])}::text[]) order by r.slug`);
}

export function appRolesOfSiteRoles(
  db: Queryable,
  site: Site,
  siteRoleIds: readonly number[],
): Promise<Array<AppRoleRow & { site_role_id: number }>> {
  if (siteRoleIds.length === 0) return Promise.resolve([]);
  return db.rows<AppRoleRow & { site_role_id: number }>(sql`
    select x.*, l.site_role_id from ${tenantTable(site, 'site_role_app_roles')} l
    join lateral (${appRoleSelect(site)} where r.id = l.app_role_id) x on true
    where l.site_role_id = any(${sql.param([...siteRoleIds])}::int[])
    order by x.slug`);
}

/** Every slug of either kind that is `base` or `base-<n>`: role slugs are unique across both kinds. */
export async function roleSlugsLike(db: Queryable, site: Site, base: string): Promise<string[]> {
  const pattern = `${base}-%`;
  const rows = await db.rows<{ slug: string }>(sql`
    select slug from ${tenantTable(site, 'app_roles')} where slug = ${base} or slug like ${pattern}
    union all
    select slug from ${tenantTable(site, 'site_roles')} where slug = ${base} or slug like ${pattern}`);
  return rows.map((row) => row.slug);
}

export async function insertAppRole(
  db: Queryable,
  site: Site,
  values: { appId: number; name: string; slug: string; description: string; parentId: number | null; permissions: readonly string[] },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    insert into ${tenantTable(site, 'app_roles')} (app_id, name, slug, description, parent_id, permissions)
    values (${values.appId}, ${values.name}, ${values.slug}, ${values.description}, ${values.parentId}, ${sql.param([...values.permissions])}::text[])
    returning id`);
  return row!.id;
}

export async function updateAppRole(
  db: Queryable,
  site: Site,
  id: number,
  values: { description: string; parentId: number | null; permissions: readonly string[] },
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'app_roles')}
    set description = ${values.description}, parent_id = ${values.parentId}, permissions = ${sql.param([...values.permissions])}::text[],
      updated_at = now() where id = ${id}`);
}

/**
 * Locks the app's roles until the transaction ends, so tree changes of one app run one after the
 * other: two moves checked against the same snapshot could otherwise close a cycle together.
 */
export async function lockAppRoles(db: Queryable, site: Site, appId: number): Promise<void> {
  await db.rows(sql`select id from ${tenantTable(site, 'app_roles')} where app_id = ${appId} order by id for update`);
}

/** The ids of a role's descendants (not the role itself), whatever their depth. */
export async function descendantIds(db: Queryable, site: Site, id: number): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(sql`
    with recursive tree as (
      select id from ${tenantTable(site, 'app_roles')} where parent_id = ${id}
      union all
      select r.id from ${tenantTable(site, 'app_roles')} r join tree t on r.parent_id = t.id
    )
    select id from tree`);
  return rows.map((row) => row.id);
}

export async function reparentChildren(db: Queryable, site: Site, id: number, newParentId: number | null): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'app_roles')} set parent_id = ${newParentId}, updated_at = now() where parent_id = ${id}`);
}

/** Deletes roles (children first is not needed: they go in one statement). Memberships go with them. */
export async function deleteAppRoles(db: Queryable, site: Site, ids: readonly number[]): Promise<number> {
  return db.run(sql`delete from ${tenantTable(site, 'app_roles')} where id = any(${sql.param([...ids])}::int[])`);
}

const siteRoleColumns = sql`s.id, s.name, s.slug, s.description, s.created_at, s.updated_at`;

export async function listSiteRoles(db: Queryable, site: Site, filter: ListFilter): Promise<Page<SiteRoleRow>> {
  const where =
    filter.search === undefined
      ? sql`true`
      : sql`(s.name ilike ${containsPattern(filter.search)} or s.description ilike ${containsPattern(filter.search)})`;
  return countedPage(
    db,
    filter.page,
    ({ window }) =>
      db.rows<SiteRoleRow>(sql`select ${siteRoleColumns} from ${tenantTable(site, 'site_roles')} s where ${where}
    order by ${orderBy('s', filter.ordering)} ${window}`),
    sql`select 1 from ${tenantTable(site, 'site_roles')} s where ${where}`,
  );
}

export async function findSiteRole(db: Queryable, site: Site, slug: string): Promise<SiteRoleRow | undefined> {
  const [row] = await db.rows<SiteRoleRow>(sql`select ${siteRoleColumns} from ${tenantTable(site, 'site_roles')} s where s.slug = ${slug}`);
  return row;
}

export async function insertSiteRole(
  db: Queryable,
  site: Site,
  values: { name: string; slug: string; description: string },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    insert into ${tenantTable(site, 'site_roles')} (name, slug, description)
    values (${values.name}, ${values.slug}, ${values.description}) returning id`);
  return row!.id;
}

export async function updateSiteRole(db: Queryable, site: Site, id: number, values: { name: string; description: string }): Promise<void> {
  await db.run(
    sql`update ${tenantTable(site, 'site_roles')} set name = ${values.name}, description = ${values.description}, updated_at = now() where id = ${id}`,
  );
}

export async function setSiteRoleAppRoles(db: Queryable, site: Site, siteRoleId: number, appRoleIds: readonly number[]): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'site_role_app_roles')} where site_role_id = ${siteRoleId}`);
  if (appRoleIds.length === 0) return;
  await db.run(sql`insert into ${tenantTable(site, 'site_role_app_roles')} (site_role_id, app_role_id)
    select ${siteRoleId}, unnest(${sql.param([...appRoleIds])}::int[])`);
}

export async function deleteSiteRole(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'site_roles')} where id = ${id}`);
}
