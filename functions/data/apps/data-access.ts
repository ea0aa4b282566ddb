// Who may do what with a site's apps, datasources and datatables. Reaching the site at all (the
// tenant middleware) lets a caller read them. Creating, changing, deleting, restoring and
// materializing need a manager of the site's content (see shared/tenancy/site-managers.ts).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { assertManagesSiteContent } from '#shared/tenancy/site-managers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export function assertManagesData(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  return assertManagesSiteContent(
    db,
    site,
    caller,
    'Changing apps, datasources and datatables needs manage_site or admin_site on this site.',
  );
}
