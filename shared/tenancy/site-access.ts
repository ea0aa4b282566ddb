// Who may work on a site, and with which site permissions.
// - Managers of the site's organization (superusers; its admins and owners; members holding
//   `manage_organization`, globally or through the membership) hold every site permission.
// - Members holding `manage_sites` (globally or through the membership) manage the organization's
//   sites, so they too hold every site permission on them.
// - Any other member holds the site permissions given to them on that site; `admin_site` implies all.
// - On a route that names an app, a user's roles add the permissions they grant in that app
//   (shared/tenancy/role-grants.ts); roles only add, they never take a permission away.
// - Permissions given on a site, and what roles grant, count only while their holder is a member of
//   the site's organization: a grant left behind by a membership that ended gives nothing.
// A caller with no site permission at all has no access to the site.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { rolePermissionsInApp } from './role-grants.ts';

export const SITE_PERMISSIONS = ['view_site', 'access_site', 'manage_site', 'manage_site_users', 'admin_site'] as const;
export type SitePermission = (typeof SITE_PERMISSIONS)[number];

export function isSitePermission(codename: string): codename is SitePermission {
  return (SITE_PERMISSIONS as readonly string[]).includes(codename);
}

export interface SiteStanding {
  /**
   * Member of the site's organization: admin or owner, and the organization permissions the
   * membership grants, directly or through the membership's groups.
   */
  membership?: { isAdmin: boolean; isOwner: boolean; permissions: string[] };
  /** Site permission codenames the user was given on this site (they count only with `membership`). */
  sitePermissions: string[];
  /** Site permission codenames the user's roles grant in the app this request names (none elsewhere). */
  appPermissions?: string[];
}

interface StandingRow {
  is_admin: boolean | null;
  is_owner: boolean | null;
  member_permissions: string[] | null;
  site_permissions: string[];
}

/**
 * The standing columns of `userId` on the site whose id and organization id are the SQL expressions
 * given; shared by `siteStanding` and the tenant lookup, which reads both in one round trip.
 * `member` is the alias of a left-joined platform.organization_members row of that user.
 */
export function standingColumns(siteId: SQL, member: SQL, userId: SQL | number): SQL {
  return sql`${member}.is_admin, ${member}.is_owner,
      ${member}.permissions || array(
        select p.codename::text from platform.organization_member_groups mg
        join platform.group_permissions gp on gp.group_id = mg.group_id
        join platform.permissions p on p.id = gp.permission_id
        where mg.member_id = ${member}.id
      ) as member_permissions,
      array(
        select p.codename::text from platform.site_user_permissions sup
        join platform.permissions p on p.id = sup.permission_id
        where sup.site_id = ${siteId} and sup.user_id = ${userId}
        order by p.codename
      ) as site_permissions`;
}

export function standingFromRow(row: StandingRow | undefined): SiteStanding {
  return {
    membership:
      row === undefined || row.is_admin === null
        ? undefined
        : { isAdmin: row.is_admin, isOwner: row.is_owner === true, permissions: row.member_permissions ?? [] },
    sitePermissions: row?.site_permissions ?? [],
  };
}

/**
 * Standings already read during this request, by site object and user. The tenant middleware
 * records the caller's here, so later access checks of the same request cost no query. Site objects
 * are made per request, so nothing outlives it.
 */
const knownStandings = new WeakMap<object, Map<number, SiteStanding>>();

export function rememberStanding(site: object, userId: number, standing: SiteStanding): void {
  const byUser = knownStandings.get(site) ?? new Map<number, SiteStanding>();
  byUser.set(userId, standing);
  knownStandings.set(site, byUser);
}

export async function siteStanding(db: Queryable, site: { siteId: number; organizationId: number }, userId: number): Promise<SiteStanding> {
  const known = knownStandings.get(site)?.get(userId);
  if (known !== undefined) return known;
  const [row] = await db.rows<StandingRow & Record<string, unknown>>(sql`
    select ${standingColumns(sql`${site.siteId}`, sql.raw('m'), userId)}
    from (select 1) one
    left join platform.organization_members m on m.organization_id = ${site.organizationId} and m.user_id = ${userId}`);
  const standing = standingFromRow(row);
  rememberStanding(site, userId, standing);
  return standing;
}

function holdsInOrganization(principal: Principal, standing: SiteStanding, codename: string): boolean {
  const membership = standing.membership;
  if (membership === undefined) return false;
  return hasPermission(principal, codename) || membership.permissions.includes(codename);
}

/** Manages the site's organization: superuser, its admin or owner, or a member holding manage_organization. */
export function managesOrganization(principal: Principal, standing: SiteStanding): boolean {
  if (principal.isSuperuser) return true;
  const membership = standing.membership;
  if (membership === undefined) return false;
  return membership.isAdmin || membership.isOwner || holdsInOrganization(principal, standing, 'manage_organization');
}

/** Manages every site of the organization: its managers and members holding manage_sites. */
export function managesSites(principal: Principal, standing: SiteStanding): boolean {
  return managesOrganization(principal, standing) || holdsInOrganization(principal, standing, 'manage_sites');
}

/** The caller's effective permissions on the site, sorted. */
export function effectiveSitePermissions(principal: Principal, standing: SiteStanding): SitePermission[] {
  if (managesSites(principal, standing)) return [...SITE_PERMISSIONS].sort();
  // Superusers are managers above; everyone else needs the membership for any grant to count.
  if (standing.membership === undefined) return [];
  if (standing.sitePermissions.includes('admin_site')) return [...SITE_PERMISSIONS].sort();
  return [...new Set([...standing.sitePermissions, ...(standing.appPermissions ?? [])])].filter(isSitePermission).sort();
}

export function canAccessSite(principal: Principal, standing: SiteStanding): boolean {
  return effectiveSitePermissions(principal, standing).length > 0;
}

/** Holds at least one of `codenames` on the site (managers hold them all). */
export function holdsSitePermission(principal: Principal, standing: SiteStanding, ...codenames: SitePermission[]): boolean {
  const effective = effectiveSitePermissions(principal, standing);
  return codenames.some((codename) => effective.includes(codename));
}

/**
 * The caller's own permissions on the site, without what roles grant in the app a request names:
 * the authority that defines roles and bounds what a role may be made to grant.
 */
export function ownSitePermissions(principal: Principal, standing: SiteStanding): SitePermission[] {
  return effectiveSitePermissions(principal, { ...standing, appPermissions: undefined });
}

/**
 * The caller's effective permissions in the app `appSlug` of the site: their own site permissions
 * and what their roles grant in that app. Roles granted in the app a request names never count for
 * another app (a reference's source app, say): each app is asked for its own.
 */
export async function permissionsInApp(
  db: Queryable,
  site: { siteId: number; organizationId: number; schemaName: string },
  principal: Principal,
  appSlug: string,
): Promise<SitePermission[]> {
  const standing = await siteStanding(db, site, principal.id);
  const own = ownSitePermissions(principal, standing);
  if (own.includes('manage_site') && own.includes('access_site')) return own;
  const granted = await rolePermissionsInApp(db, site, principal.id, appSlug);
  return effectiveSitePermissions(principal, { ...standing, appPermissions: granted });
}
