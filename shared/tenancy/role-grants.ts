// What a user's roles let them do in one app of a site. An app role carries permissions from
// APP_ROLE_PERMISSIONS, which count in that role's app only (on the routes whose path names the app,
// `/api/apps/{app_slug}/...` and `/api/app/{app_slug}/roles`). A user holds the roles of their
// unexpired memberships, the app roles of the site roles they hold, and every descendant of a role
// they hold: a parent role is the senior one and can do all its children can. Memberships live in
// the site's schema, so another site's roles never count here, and they count only while their
// holder is a member of the site's organization (leaving it, or never having joined, ends them).
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite } from '#shared/db/sql-identifiers.ts';

/** The site permission names an app role may carry; each counts inside the role's app only. */
export const APP_ROLE_PERMISSIONS = ['view_site', 'access_site', 'manage_site'] as const;

/** The app slug of a route whose path names an app, from its parsed path parameters. */
export function appSlugOfRoute(path: string, params: unknown): string | undefined {
  if (!path.includes('{app_slug}') || typeof params !== 'object' || params === null) return undefined;
  const slug = (params as Record<string, unknown>).app_slug;
  return typeof slug === 'string' ? slug : undefined;
}

/**
 * Whether `userId` is a member of the organization owning the site whose schema is `site`'s, as a
 * boolean expression: read here rather than trusted from the assignment, so that removing a member
 * from the organization ends their roles on the next request.
 */
function organizationMemberSql(site: SchemaScopedSite, userId: SQL | number): SQL {
  return sql`exists(
    select 1 from platform.organization_members om join platform.sites os on os.organization_id = om.organization_id
    where os.schema_name = ${site.schemaName} and om.user_id = ${userId}
  )`;
}

/**
 * `with recursive held(id)`: the app roles `userId` holds on the site through unexpired memberships,
 * directly, through a site role, or as a descendant of one held. Whether the memberships count (the
 * holder a member of the organization) is for the statement that reads them to say.
 */
export function heldAppRolesSql(site: SchemaScopedSite, userId: SQL | number): SQL {
  const memberships = tenantTable(site, 'role_memberships');
  return sql`with recursive held as (
      select m.app_role_id as id from ${memberships} m
        where m.user_id = ${userId} and m.app_role_id is not null and (m.expires_at is null or m.expires_at > now())
      union
      select l.app_role_id from ${memberships} m
        join ${tenantTable(site, 'site_role_app_roles')} l on l.site_role_id = m.site_role_id
        where m.user_id = ${userId} and (m.expires_at is null or m.expires_at > now())
      union
      select child.id from ${tenantTable(site, 'app_roles')} child join held on child.parent_id = held.id
    )`;
}

/**
 * The permissions `userId`'s roles grant in the (not deleted) app `appSlug` of `site`, sorted, as a
 * scalar subquery (a text array): read alone, or fused into the caller-and-site statement.
 */
export function rolePermissionsSql(site: SchemaScopedSite, userId: SQL | number, appSlug: string): SQL {
  const roles = tenantTable(site, 'app_roles');
  return sql`
    ${heldAppRolesSql(site, userId)}
    select array(
      select distinct permission from held
        join ${roles} r on r.id = held.id
        join ${tenantTable(site, 'apps')} a on a.id = r.app_id and a.slug = ${appSlug} and a.deleted_at is null
        cross join unnest(r.permissions) as permission
      where ${organizationMemberSql(site, userId)}
      order by permission
    )`;
}

/** The permissions `userId`'s roles grant in the (not deleted) app `appSlug` of `site`, sorted. */
export async function rolePermissionsInApp(db: Queryable, site: SchemaScopedSite, userId: number, appSlug: string): Promise<string[]> {
  const [row] = await db.rows<{ permissions: string[] | null }>(sql`select (${rolePermissionsSql(site, userId, appSlug)}) as permissions`);
  return row?.permissions ?? [];
}

/**
 * Whether `userId` holds any unexpired membership of the site, of either kind, that counts (they are
 * a member of the site's organization), as a boolean expression: without one, their roles grant
 * nothing anywhere on the site.
 */
export function holdsAnyRoleSql(site: SchemaScopedSite, userId: SQL | number): SQL {
  return sql`(exists(
    select 1 from ${tenantTable(site, 'role_memberships')} where user_id = ${userId} and (expires_at is null or expires_at > now())
  ) and ${organizationMemberSql(site, userId)})`;
}

/** Whether `userId` holds any unexpired membership of the site, of either kind, that counts. */
export async function holdsAnyRole(db: Queryable, site: SchemaScopedSite, userId: number): Promise<boolean> {
  const [row] = await db.rows<{ holds: boolean }>(sql`select ${holdsAnyRoleSql(site, userId)} as holds`);
  return row?.holds === true;
}
