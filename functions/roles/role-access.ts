// Who may do what with a site's roles (the site permissions of the spec). Reaching the site lets a
// caller read roles and their own memberships; defining roles (app roles, site roles) needs
// manage_site; assigning them and reading who holds them needs manage_site_users. admin_site and
// the managers of the site's organization hold both (shared/tenancy/site-access.ts).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export async function assertDefinesRoles(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site')) {
    throw new PermissionDeniedError('Creating, changing and deleting roles needs manage_site or admin_site on this site.');
  }
}

export async function assertAssignsRoles(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site_users')) {
    throw new PermissionDeniedError("Assigning roles and reading their users needs manage_site_users or admin_site on this site.");
  }
}
