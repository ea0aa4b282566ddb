// Who may work on a site: superusers, admins and owners of the site's organization, holders of
// `manage_organization` who are members of it, and users given any site permission on it.
import { sql } from 'drizzle-orm';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';

export interface SiteStanding {
  /** Member of the site's organization, and whether as admin or owner. */
  membership?: { isAdmin: boolean; isOwner: boolean };
  /** Site permission codenames the user was given on this site. */
  sitePermissions: string[];
}

export async function siteStanding(
  db: Queryable,
  site: { siteId: number; organizationId: number },
  userId: number,
): Promise<SiteStanding> {
  const [row] = await db.rows<{ is_admin: boolean | null; is_owner: boolean | null; site_permissions: string[] }>(sql`
    select m.is_admin, m.is_owner,
      array(
        select p.codename from platform.site_user_permissions sup
        join platform.permissions p on p.id = sup.permission_id
        where sup.site_id = ${site.siteId} and sup.user_id = ${userId}
        order by p.codename
      ) as site_permissions
    from (select 1) one
    left join platform.organization_members m on m.organization_id = ${site.organizationId} and m.user_id = ${userId}`);
  return {
    membership: row?.is_admin === null || row === undefined ? undefined : { isAdmin: row.is_admin, isOwner: row.is_owner === true },
    sitePermissions: row?.site_permissions ?? [],
  };
}

/** Manages the site's organization: superuser, its admin or owner, or a member holding manage_organization. */
export function managesOrganization(principal: Principal, standing: SiteStanding): boolean {
  if (principal.isSuperuser) return true;
  const membership = standing.membership;
  if (membership === undefined) return false;
  return membership.isAdmin || membership.isOwner || hasPermission(principal, 'manage_organization');
}

export function canAccessSite(principal: Principal, standing: SiteStanding): boolean {
  return managesOrganization(principal, standing) || standing.sitePermissions.length > 0;
}
