// The sets of sites a caller reaches, as SQL conditions on a site id, so lists are filtered in the
// database by the same rules `#shared/tenancy/site-access.ts` applies to one site.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';

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

/** Sites the caller can access: superusers all; site managers their organizations' sites; else any site permission. */
export function accessibleSites(principal: Principal, siteId: SQL): SQL {
  if (principal.isSuperuser) return sql`true`;
  return sql`(${siteId} in (select s.id from platform.sites s where s.organization_id in ${sitesManagedOrganizations(principal)})
    or ${siteId} in (select sup.site_id from platform.site_user_permissions sup where sup.user_id = ${principal.id}))`;
}

/** Sites on which the caller may assign users: site managers, and holders of manage_site_users or admin_site there. */
export function userManageableSites(principal: Principal, siteId: SQL): SQL {
  if (principal.isSuperuser) return sql`true`;
  return sql`(${siteId} in (select s.id from platform.sites s where s.organization_id in ${sitesManagedOrganizations(principal)})
    or ${siteId} in (select sup.site_id from platform.site_user_permissions sup
      join platform.permissions p on p.id = sup.permission_id
      where sup.user_id = ${principal.id} and p.codename in ('manage_site_users', 'admin_site')))`;
}
