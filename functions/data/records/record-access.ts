// Who may touch a table's records. Reaching the site (the tenant middleware) lets a caller read
// them; writing needs more than `view_site`: `access_site`, `manage_site` or `admin_site` (site
// managers hold them all).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export async function assertMayWriteRecords(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'access_site', 'manage_site', 'admin_site')) {
    throw new PermissionDeniedError('Changing records needs access_site, manage_site or admin_site on this site.');
  }
}
