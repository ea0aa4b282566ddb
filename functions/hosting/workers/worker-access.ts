// Who may change a site's frontend workers, as with its other content (apps, datatables, buckets,
// functions: shared/tenancy/site-managers.ts). Reaching the site (the tenant middleware) lets a
// caller list and read workers, their builds and subdomain availability; creating, changing and
// deleting a worker, uploading a build and activating one need a manager of the site's content.
import { assertManagesSiteContent } from '#shared/tenancy/site-managers.ts';
import type { HostingEnv } from '../hosting-env.ts';

const MANAGE_MESSAGE = 'Changing frontend workers and their builds needs manage_site or admin_site on this site.';

/** Throws 403 PERMISSION_DENIED unless the caller may change the site's workers. */
export function assertManagesWorkers(env: Pick<HostingEnv, 'db' | 'site' | 'user'>): Promise<void> {
  return assertManagesSiteContent(env.db, env.site, env.user, MANAGE_MESSAGE);
}
