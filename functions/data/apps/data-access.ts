// Who may do what with a site's apps, datasources and datatables. Reaching the site at all (the
// tenant middleware) lets a caller read them. Creating, changing, deleting, restoring and
// materializing need a manager of the site: a superuser, an admin or owner of its organization, a
// member holding manage_organization or manage_sites, or a holder of manage_site or admin_site.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export async function assertManagesData(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site', 'admin_site')) {
    throw new PermissionDeniedError('Changing apps, datasources and datatables needs manage_site or admin_site on this site.');
  }
}
