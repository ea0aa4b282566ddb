// SQL of the user↔site relations: rows of `site_user_permissions` grouped per site or per user,
// and the grants and revocations. Scopes come in as a `SiteScope` (site-scope-sql.ts).
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage } from '#shared/db/counted-page.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';
import { ofMembers, siteScopeCondition, sitesManagedOrganizations, type SiteScope } from './site-scope-sql.ts';

export type UserSiteRow = {
  slug: string;
  name: string;
  permissions: string[];
};

export type SiteUserRow = {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  permissions: string[];
};

export interface UserSitesFilter {
  scope: SiteScope;
  search?: string;
  name?: string;
  nameContains?: string;
  page: PageRequest;
}

export async function sitesOfUser(db: Queryable, userId: number, filter: UserSitesFilter) {
  const conditions: SQL[] = [sql`sup.user_id = ${userId}`, siteScopeCondition(filter.scope, sql`s.id`)];
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(sql`(s.slug ilike ${pattern} or s.name ilike ${pattern})`);
  }
  if (filter.name !== undefined) conditions.push(sql`s.name = ${filter.name}`);
  if (filter.nameContains !== undefined) conditions.push(sql`s.name ilike ${containsPattern(filter.nameContains)}`);
  return countedPage(
    db,
    filter.page,
    ({ window }) =>
      db.rows<UserSiteRow>(sql`
    select s.slug, s.name, array_agg(p.codename::text order by p.codename) as permissions
    from platform.site_user_permissions sup
    join platform.sites s on s.id = sup.site_id
    join platform.permissions p on p.id = sup.permission_id
    where ${sql.join(conditions, sql` and `)}
    group by s.id, s.slug, s.name
    order by s.slug
    ${window}`),
    sql`select distinct sup.site_id
    from platform.site_user_permissions sup join platform.sites s on s.id = sup.site_id
    where ${sql.join(conditions, sql` and `)}`,
  );
}

export async function usersOfSite(db: Queryable, siteId: number, filter: { onlyUserId?: number; search?: string; page: PageRequest }) {
  const conditions: SQL[] = [sql`sup.site_id = ${siteId}`, sql`not u.is_deleted`];
  if (filter.onlyUserId !== undefined) conditions.push(sql`u.id = ${filter.onlyUserId}`);
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(
      sql`(u.username ilike ${pattern} or u.email ilike ${pattern} or u.first_name ilike ${pattern} or u.last_name ilike ${pattern})`,
    );
  }
  return countedPage(
    db,
    filter.page,
    ({ window }) =>
      db.rows<SiteUserRow>(sql`
    select u.username, u.email, u.first_name, u.last_name,
      array_agg(p.codename::text order by p.codename) as permissions
    from platform.site_user_permissions sup
    join platform.users u on u.id = sup.user_id
    join platform.permissions p on p.id = sup.permission_id
    where ${sql.join(conditions, sql` and `)}
    group by u.id, u.username, u.email, u.first_name, u.last_name
    order by u.username
    ${window}`),
    sql`select distinct sup.user_id
    from platform.site_user_permissions sup join platform.users u on u.id = sup.user_id
    where ${sql.join(conditions, sql` and `)}`,
  );
}

export type RelationUser = {
  id: number;
  uuid: string;
  username: string;
};

/** Active (not soft-deleted) users by username or UUID. */
export async function findRelationUsers(db: Queryable, identifiers: string[]): Promise<RelationUser[]> {
  if (identifiers.length === 0) return [];
  return db.rows<RelationUser>(sql`
    select id, username, uuid::text as uuid from platform.users
    where not is_deleted and (username = any(${sql.param(identifiers)}::text[]) or uuid::text = any(${sql.param(identifiers.map((id) => id.toLowerCase()))}::text[]))`);
}

/** Members of the organization among `userIds`. */
export async function membersAmong(db: Queryable, organizationId: number, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.rows<{ user_id: number }>(sql`
    select user_id from platform.organization_members
    where organization_id = ${organizationId} and user_id = any(${sql.param(userIds)}::int[])`);
  return new Set(rows.map((row) => Number(row.user_id)));
}

/** Grants that count (their holder a member of the site's organization, site-scope-sql.ts), the site as `gs`. */
const countingGrants = sql`from platform.site_user_permissions sup ${ofMembers}
    join platform.permissions p on p.id = sup.permission_id`;

/** Per user, the permissions that count on the site: of `userIds`, or of everyone when absent. */
export async function countingPermissionsOnSite(db: Queryable, siteId: number, userIds?: number[]): Promise<Map<number, string[]>> {
  const who = userIds === undefined ? sql`true` : sql`sup.user_id = any(${sql.param(userIds)}::int[])`;
  const rows = await db.rows<{ user_id: number; permissions: string[] }>(sql`
    select sup.user_id, array_agg(p.codename::text order by p.codename) as permissions
    ${countingGrants}
    where sup.site_id = ${siteId} and ${who}
    group by sup.user_id`);
  return new Map(rows.map((row) => [Number(row.user_id), row.permissions]));
}

/** Per site slug, the permissions of the user that count: on the sites of `siteIds`, or of `scope`. */
export async function countingPermissionsOfUser(
  db: Queryable,
  userId: number,
  sites: { siteIds: number[] } | SiteScope,
): Promise<Map<string, string[]>> {
  const which = 'siteIds' in sites ? sql`gs.id = any(${sql.param(sites.siteIds)}::int[])` : siteScopeCondition(sites, sql`gs.id`);
  const rows = await db.rows<{ slug: string; permissions: string[] }>(sql`
    select gs.slug, array_agg(p.codename::text order by p.codename) as permissions
    ${countingGrants}
    where sup.user_id = ${userId} and ${which}
    group by gs.slug`);
  return new Map(rows.map((row) => [row.slug, row.permissions]));
}

export interface Grant {
  siteId: number;
  userId: number;
  permissions: string[];
}

export async function insertGrants(db: Queryable, grants: Grant[]): Promise<void> {
  for (const grant of grants) {
    await db.run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select ${grant.siteId}, ${grant.userId}, p.id from platform.permissions p
      where p.codename = any(${sql.param(grant.permissions)}::text[])
      on conflict do nothing`);
  }
}

/** Removes every permission the user holds on the sites matching `scope`. */
export async function revokeUserSites(db: Queryable, userId: number, scope: SiteScope): Promise<number> {
  return db.run(
    sql`delete from platform.site_user_permissions sup where sup.user_id = ${userId} and ${siteScopeCondition(scope, sql`sup.site_id`)}`,
  );
}

/** Removes every permission on the site of the given users, or of everyone but `keepUserId`. */
export async function revokeSiteUsers(db: Queryable, siteId: number, users: { userIds: number[] } | { allBut?: number }): Promise<number> {
  const who =
    'userIds' in users
      ? sql`sup.user_id = any(${sql.param(users.userIds)}::int[])`
      : users.allBut === undefined
        ? sql`true`
        : sql`sup.user_id <> ${users.allBut}`;
  return db.run(sql`delete from platform.site_user_permissions sup where sup.site_id = ${siteId} and ${who}`);
}

/** Whether the caller manages, in at least one organization of the target, its sites or their users. */
export async function sharesManagedOrganization(db: Queryable, targetUserId: number, caller: Principal): Promise<boolean> {
  const managedSites = siteScopeCondition({ sites: 'users-managed', caller }, sql`s.id`);
  const rows = await db.rows(sql`
    select 1 from platform.organization_members tm
    where tm.user_id = ${targetUserId}
      and (tm.organization_id in ${sitesManagedOrganizations(caller)}
        or tm.organization_id in (select s.organization_id from platform.sites s where ${managedSites}))
    limit 1`);
  return rows.length > 0;
}
