// Who may do what with an app's functions and their event subscriptions, as with the site's other
// app content (apps, datatables, buckets: shared/tenancy/site-managers.ts). Reaching the site (the
// tenant middleware) lets a caller list and read functions and their invocations. Creating,
// changing, deleting, subscribing and unsubscribing, and reading the signing secret in clear, need a
// manager of the site's content; on the app's own routes an app role granting manage_site counts.
import { assertManagesSiteContent, managesSiteContent } from '#shared/tenancy/site-managers.ts';
import type { FunctionsEnv } from './function-service.ts';

const MANAGE_MESSAGE = 'Changing functions and their event subscriptions needs manage_site or admin_site on this site.';

/** Whether the caller may change the site's functions, and so read their signing secrets. */
export function managesFunctions(env: Pick<FunctionsEnv, 'db' | 'site' | 'user'>): Promise<boolean> {
  return managesSiteContent(env.db, env.site, env.user);
}

/** Throws 403 PERMISSION_DENIED unless the caller may change the site's functions. */
export function assertManagesFunctions(env: Pick<FunctionsEnv, 'db' | 'site' | 'user'>): Promise<void> {
  return assertManagesSiteContent(env.db, env.site, env.user, MANAGE_MESSAGE);
}
