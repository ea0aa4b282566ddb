// The managers of a site's content (apps, tables, buckets): a superuser, an admin or owner of its
// organization, a member holding manage_organization or manage_sites, or a holder of manage_site or
// admin_site on the site.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from './site-access.ts';
import type { Tenant } from './tenant.ts';

export async function managesSiteContent(db: Queryable, site: Tenant, caller: Principal): Promise<boolean> {
  if (caller.isSuperuser) return true;
  return holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site', 'admin_site');
}

/** Throws 403 PERMISSION_DENIED with `message` unless the caller manages the site's content. */
export async function assertManagesSiteContent(db: Queryable, site: Tenant, caller: Principal, message: string): Promise<void> {
  if (!(await managesSiteContent(db, site, caller))) throw new PermissionDeniedError(message);
}
