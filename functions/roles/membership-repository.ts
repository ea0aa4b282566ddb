// SQL of role memberships: which platform users hold which of a site's roles, until when. The
// membership table is in the site's schema (through `tenantTable`); users are platform rows.
import { countedPage } from '#shared/db/counted-page.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';
import { heldAppRolesSql } from '#shared/tenancy/role-grants.ts';
import type { Page } from './role-repository.ts';

/** A role of either kind, as memberships point at it. */
export interface RoleRef {
  kind: 'app_role' | 'site_role';
  id: number;
  slug: string;
}

export interface UserRef {
  id: number;
  username: string;
}

/** Dates travel as ISO text: the raw statement path binds strings, not Date objects (postgres.js). */
const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());

const roleColumn = (role: RoleRef): SQL => sql.raw(role.kind === 'app_role' ? 'app_role_id' : 'site_role_id');

/** Roles of either kind by slug (slugs are unique across both kinds). */
export async function rolesBySlugs(db: Queryable, site: Site, slugs: readonly string[]): Promise<RoleRef[]> {
  const param = sql.param([...slugs]);
  return db.rows<RoleRef & Record<string, unknown>>(sql`
    select 'app_role' as kind, id, slug from ${tenantTable(site, 'app_roles')} where slug = any(${param}::text[])
    union all
    select 'site_role' as kind, id, slug from ${tenantTable(site, 'site_roles')} where slug = any(${param}::text[])`);
}

/**
 * Users who can hold the site's roles: existing, active, not soft-deleted, and members of the site's
 * organization (cross-organization assignment is denied). With `orHolders`, also users who hold a
 * membership of the site's roles, so that a membership left behind by a departed member can be taken
 * away (they are listed among the role's users anyway).
 */
export function usersByUsernames(
  db: Queryable,
  site: Site & { organizationId: number },
  usernames: readonly string[],
  orHolders = false,
): Promise<UserRef[]> {
  const holder = orHolders ? sql` or exists(select 1 from ${tenantTable(site, 'role_memberships')} rm where rm.user_id = u.id)` : sql``;
  return db.rows<UserRef & Record<string, unknown>>(sql`
    select u.id, u.username from platform.users u
    where u.username = any(${sql.param([...usernames])}::text[]) and u.is_active and not u.is_deleted and (exists(
      select 1 from platform.organization_members om where om.organization_id = ${site.organizationId} and om.user_id = u.id
    )${holder})`);
}

/**
 * Adds memberships; an active one is kept as it is, an expired one is renewed with these values (the
 * new expiry or none). Answers how many were added or renewed.
 */
export function addMemberships(
  db: Queryable,
  site: Site,
  role: RoleRef,
  userIds: readonly number[],
  values: { expiresAt: Date | null; assignedBy: number },
): Promise<number> {
  if (userIds.length === 0) return Promise.resolve(0);
  return db.run(sql`
    insert into ${tenantTable(site, 'role_memberships')} (user_id, ${roleColumn(role)}, expires_at, assigned_by)
    select u, ${role.id}, ${isoOrNull(values.expiresAt)}::timestamptz, ${values.assignedBy} from unnest(${sql.param([...userIds])}::int[]) as u
    on conflict (${roleColumn(role)}, user_id) where ${roleColumn(role)} is not null
    do update set expires_at = excluded.expires_at, assigned_by = excluded.assigned_by
    where role_memberships.expires_at is not null and role_memberships.expires_at <= now()`);
}

export function removeMemberships(db: Queryable, site: Site, role: RoleRef, userIds: readonly number[]): Promise<number> {
  if (userIds.length === 0) return Promise.resolve(0);
  return db.run(sql`delete from ${tenantTable(site, 'role_memberships')}
    where ${roleColumn(role)} = ${role.id} and user_id = any(${sql.param([...userIds])}::int[])`);
}

/** Removes every membership of the role except those of `keptUserIds`. */
export function removeOtherMemberships(db: Queryable, site: Site, role: RoleRef, keptUserIds: readonly number[]): Promise<number> {
  return db.run(sql`delete from ${tenantTable(site, 'role_memberships')}
    where ${roleColumn(role)} = ${role.id} and not (user_id = any(${sql.param([...keptUserIds])}::int[]))`);
}

export function setMembershipExpiry(
  db: Queryable,
  site: Site,
  role: RoleRef,
  userIds: readonly number[],
  expiresAt: Date | null,
): Promise<number> {
  if (userIds.length === 0) return Promise.resolve(0);
  return db.run(sql`update ${tenantTable(site, 'role_memberships')} set expires_at = ${isoOrNull(expiresAt)}::timestamptz
    where ${roleColumn(role)} = ${role.id} and user_id = any(${sql.param([...userIds])}::int[])`);
}

export async function memberUserIds(db: Queryable, site: Site, role: RoleRef, userIds: readonly number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await db.rows<{ user_id: number }>(sql`select user_id from ${tenantTable(site, 'role_memberships')}
    where ${roleColumn(role)} = ${role.id} and user_id = any(${sql.param([...userIds])}::int[])`);
  return rows.map((row) => row.user_id);
}

export interface RoleUserRow {
  username: string;
  /** Null where the caller may not read it. */
  email: string | null;
  first_name: string;
  last_name: string;
  expires_at: Date | string | null;
  [key: string]: unknown;
}

export interface RoleUserFilter {
  search?: string;
  username?: string;
  includeExpired: boolean;
  /** A column of the fixed list in the schemas, and its direction. */
  ordering: { column: 'username' | 'email' | 'first_name' | 'last_name' | 'created_at'; descending: boolean };
  page: PageRequest;
}

/** Whose emails a role's user list shows (the members list's rule, functions/console/access/user-authority.ts). */
export interface EmailReader {
  callerId: number;
  /** Superusers, staff and view_user holders read everyone's. */
  readsAll: boolean;
}

/**
 * Whether the caller reads the email of `u`: everyone's for a reader of all, their own, and those of
 * the members of the organizations they administer (admin or owner), as a boolean expression.
 */
function emailReadable(reader: EmailReader): SQL {
  if (reader.readsAll) return sql`true`;
  return sql`(u.id = ${reader.callerId} or exists(
    select 1 from platform.organization_members theirs
    join platform.organization_members mine
      on mine.organization_id = theirs.organization_id and mine.user_id = ${reader.callerId} and (mine.is_admin or mine.is_owner)
    where theirs.user_id = u.id))`;
}

const active = (alias: string): SQL => sql.raw(`(${alias}.expires_at is null or ${alias}.expires_at > now())`);

export async function listRoleUsers(
  db: Queryable,
  site: Site,
  role: RoleRef,
  filter: RoleUserFilter,
  reader: EmailReader,
): Promise<Page<RoleUserRow>> {
  // A hidden email is neither shown, searched nor ordered by: either would tell it.
  const email = sql`case when ${emailReadable(reader)} then u.email end`;
  const conditions: SQL[] = [sql`m.${roleColumn(role)} = ${role.id}`];
  if (!filter.includeExpired) conditions.push(active('m'));
  if (filter.username !== undefined) conditions.push(sql`u.username = ${filter.username}`);
  if (filter.search !== undefined) {
    const pattern = containsPattern(filter.search);
    conditions.push(
      sql`(u.username ilike ${pattern} or ${email} ilike ${pattern} or u.first_name ilike ${pattern} or u.last_name ilike ${pattern})`,
    );
  }
  const where = sql.join(conditions, sql` and `);
  const from = sql`from ${tenantTable(site, 'role_memberships')} m join platform.users u on u.id = m.user_id`;
  const { column: orderColumn, descending } = filter.ordering;
  const column = orderColumn === 'email' ? email : sql.raw(orderColumn === 'created_at' ? 'm.created_at' : `u.${orderColumn}`);
  return countedPage(
    db,
    filter.page,
    ({ window }) =>
      db.rows<RoleUserRow>(sql`select u.username, ${email} as email, u.first_name, u.last_name, m.expires_at ${from} where ${where}
    order by ${column} ${sql.raw(`${descending ? 'desc' : 'asc'}, m.id asc`)}
    ${window}`),
    sql`select 1 ${from} where ${where}`,
  );
}

export interface UserRoleRow {
  membership_type: 'app_role' | 'site_role';
  role_id: number;
  role_name: string;
  role_slug: string;
  app_slug: string | null;
  expires_at: Date | string | null;
  created_at: Date | string;
  assigned_by: string | null;
  [key: string]: unknown;
}

export interface UserRoleFilter {
  app?: string;
  search?: string;
  membershipType?: 'app_role' | 'site_role';
  includeExpired: boolean;
  ordering: { column: 'created_at' | 'expires_at' | 'role_name'; descending: boolean };
  page: PageRequest;
}

export async function listUserRoles(db: Queryable, site: Site, userId: number, filter: UserRoleFilter): Promise<Page<UserRoleRow>> {
  const memberships = tenantTable(site, 'role_memberships');
  const appRoles = tenantTable(site, 'app_roles');
  const apps = tenantTable(site, 'apps');
  const all = sql`
    select 'app_role' as membership_type, r.id as role_id, r.name as role_name, r.slug as role_slug, a.slug as app_slug,
      array[a.slug::text] as app_slugs, m.expires_at, m.created_at, m.id as membership_id, ab.username as assigned_by
    from ${memberships} m join ${appRoles} r on r.id = m.app_role_id join ${apps} a on a.id = r.app_id
    left join platform.users ab on ab.id = m.assigned_by
    where m.user_id = ${userId}
    union all
    select 'site_role', s.id, s.name, s.slug, null,
      array(select a.slug::text from ${tenantTable(site, 'site_role_app_roles')} l join ${appRoles} r on r.id = l.app_role_id
        join ${apps} a on a.id = r.app_id where l.site_role_id = s.id),
      m.expires_at, m.created_at, m.id, ab.username
    from ${memberships} m join ${tenantTable(site, 'site_roles')} s on s.id = m.site_role_id
    left join platform.users ab on ab.id = m.assigned_by
    where m.user_id = ${userId}`;
  const conditions: SQL[] = [sql`true`];
  if (!filter.includeExpired) conditions.push(active('x'));
  if (filter.app !== undefined) conditions.push(sql`${filter.app} = any(x.app_slugs)`);
  if (filter.membershipType !== undefined) conditions.push(sql`x.membership_type = ${filter.membershipType}`);
  if (filter.search !== undefined) {
    const pattern = containsPattern(filter.search);
    conditions.push(sql`(x.role_name ilike ${pattern} or x.role_slug ilike ${pattern})`);
  }
  const where = sql.join(conditions, sql` and `);
  const { column, descending } = filter.ordering;
  return countedPage(
    db,
    filter.page,
    ({ window }) =>
      db.rows<UserRoleRow>(sql`select x.* from (${all}) x where ${where}
    order by ${sql.raw(`x.${column} ${descending ? 'desc' : 'asc'} nulls last, x.membership_id asc`)}
    ${window}`),
    sql`select 1 from (${all}) x where ${where}`,
  );
}

/**
 * What holding each role grants, by role slug: an app role's permissions and its descendants', a
 * site role's app roles' (and their descendants'). Used to keep an assigner from handing out more
 * than they hold.
 */
export async function permissionsGrantedBy(db: Queryable, site: Site, roles: readonly RoleRef[]): Promise<Map<string, string[]>> {
  if (roles.length === 0) return new Map();
  const appRoles = tenantTable(site, 'app_roles');
  const rows = await db.rows<{ slug: string; permissions: string[] }>(sql`
    with recursive starts as (
      select slug, id as app_role_id from ${appRoles} where id = any(${sql.param(roles.filter((role) => role.kind === 'app_role').map((role) => role.id))}::int[])
      union all
      select s.slug, l.app_role_id from ${tenantTable(site, 'site_roles')} s
        join ${tenantTable(site, 'site_role_app_roles')} l on l.site_role_id = s.id
        where s.id = any(${sql.param(roles.filter((role) => role.kind === 'site_role').map((role) => role.id))}::int[])
    ), tree as (
      select slug, app_role_id from starts
      union
      select tree.slug, child.id from tree join ${appRoles} child on child.parent_id = tree.app_role_id
    )
    select tree.slug, coalesce(array_agg(distinct p.name) filter (where p.name is not null), '{}') as permissions
    from tree join ${appRoles} r on r.id = tree.app_role_id
    left join lateral unnest(r.permissions) as p(name) on true
    group by tree.slug`);
  return new Map(rows.map((row) => [row.slug, row.permissions]));
}

/**
 * The roles `userId` holds on the site through unexpired memberships, by id: app roles held directly,
 * through a site role, or as a descendant of one held; and site roles held.
 */
export async function heldRoleIds(db: Queryable, site: Site, userId: number): Promise<{ appRoles: Set<number>; siteRoles: Set<number> }> {
  const memberships = tenantTable(site, 'role_memberships');
  const rows = await db.rows<{ kind: string; id: number }>(sql`
    ${heldAppRolesSql(site, userId)}
    select 'app_role' as kind, id from held
    union all
    select 'site_role', site_role_id from ${memberships}
      where user_id = ${userId} and site_role_id is not null and (expires_at is null or expires_at > now())`);
  const ids = (kind: string) => new Set(rows.filter((row) => row.kind === kind).map((row) => Number(row.id)));
  return { appRoles: ids('app_role'), siteRoles: ids('site_role') };
}
