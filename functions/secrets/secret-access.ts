// Who may do what with a site's secrets. Reaching the site at all (the tenant middleware) lets a
// caller list secrets with masked values, read secret types and read the history. Reading a value
// and every change need a manager of the site: a superuser, an admin or owner of its organization,
// a member holding manage_organization or manage_sites, or a holder of manage_site or admin_site on
// this site.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

/** Site managers (including members holding manage_sites) hold every site permission, so they pass too. */
export async function managesSecrets(db: Queryable, site: Tenant, caller: Principal): Promise<boolean> {
  if (caller.isSuperuser) return true;
  return holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site', 'admin_site');
}

export async function assertManagesSecrets(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (!(await managesSecrets(db, site, caller))) {
    throw new PermissionDeniedError('Reading secret values and changing secrets needs manage_site or admin_site on this site.');
  }
}
