// The sets of sites a caller reaches, as SQL conditions on a site id, so lists are filtered in the
// database by the same rules `#shared/tenancy/site-access.ts` applies to one site. Services name a
// scope (`SiteScope`); only the repositories (site-repository.ts, site-user-repository.ts) turn it
// into SQL here.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';

/**
 * Which sites a list or a revocation covers: every site; those the caller can access; or those on
 * which the caller may assign users (site managers, holders of manage_site_users or admin_site).
 */
export type SiteScope = { sites: 'every' } | { sites: 'accessible' | 'users-managed'; caller: Principal };

/**
 * Organizations whose sites the caller manages: admin, owner, or holding manage_organization or
 * manage_sites globally, through the membership or through the membership's groups.
 */
export function sitesManagedOrganizations(principal: Principal): SQL {
  const globalManager = hasPermission(principal, 'manage_organization') || hasPermission(principal, 'manage_sites');
  return sql`(select m.organization_id from platform.organization_members m
    where m.user_id = ${principal.id}
      and (m.is_admin or m.is_owner or ${globalManager}::boolean
        or m.permissions && array['manage_organization', 'manage_sites']::text[]
        or exists (select 1 from platform.organization_member_groups mg
          join platform.group_permissions gp on gp.group_id = mg.group_id
          join platform.permissions p on p.id = gp.permission_id
          where mg.member_id = m.id and p.codename in ('manage_organization', 'manage_sites'))))`;
}

/** The scope as a condition on `siteId`. */
export function siteScopeCondition(scope: SiteScope, siteId: SQL): SQL {
  if (scope.sites === 'every' || scope.caller.isSuperuser) return sql`true`;
  return scope.sites === 'accessible' ? accessibleSites(scope.caller, siteId) : userManageableSites(scope.caller, siteId);
}

/**
 * Joins limiting `sup` (site_user_permissions) to grants whose holder is still a member of the
 * site's organization, as effectiveSitePermissions (site-access.ts) does for one site; the site is `gs`.
 */
export const ofMembers = sql`join platform.sites gs on gs.id = sup.site_id
      join platform.organization_members gm on gm.organization_id = gs.organization_id and gm.user_id = sup.user_id`;

/** Sites the caller can access: site managers their organizations' sites; else any site permission. */
function accessibleSites(principal: Principal, siteId: SQL): SQL {
  return sql`(${siteId} in (select s.id from platform.sites s where s.organization_id in ${sitesManagedOrganizations(principal)})
    or ${siteId} in (select sup.site_id from platform.site_user_permissions sup ${ofMembers} where sup.user_id = ${principal.id}))`;
}

/** Sites on which the caller may assign users: site managers, and holders of manage_site_users or admin_site there. */
function userManageableSites(principal: Principal, siteId: SQL): SQL {
  return sql`(${siteId} in (select s.id from platform.sites s where s.organization_id in ${sitesManagedOrganizations(principal)})
    or ${siteId} in (select sup.site_id from platform.site_user_permissions sup ${ofMembers}
      join platform.permissions p on p.id = sup.permission_id
      where sup.user_id = ${principal.id} and p.codename in ('manage_site_users', 'admin_site')))`;
}
