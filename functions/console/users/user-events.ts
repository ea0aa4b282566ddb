// The user events of a user created through a site's host or X-Tenant (DECISIONS): PRE_USER_CREATE
// runs the site's subscribers before the user is saved (any failure aborts it), POST_USER_CREATE
// queues them after. A user created on the platform host, or by a caller without access to the
// named site, fires no tenant subscribers.
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { eventQueueFor, publishPostEvent } from '#shared/events/post-events.ts';
import { publishPreEvent } from '#shared/events/pre-events.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { describeError } from '#shared/logger.ts';
import { resolveTenant } from '#shared/tenancy/resolve-tenant.ts';
import { canAccessSite, siteStanding } from '#shared/tenancy/site-access.ts';
import { userRecord } from './user-representation.ts';
import type { UserCreationEvents } from './user-service.ts';

export async function userCreationEvents(ctx: RequestContext): Promise<UserCreationEvents | undefined> {
  const tenantHeader = ctx.request.headers['x-tenant'];
  const { db, config } = ctx.runtime;
  const lookup = await resolveTenant(db, { host: ctx.request.host, tenantHeader });
  if (!('found' in lookup)) return undefined;
  const site = lookup.found;
  if (!canAccessSite(ctx.user, await siteStanding(db, site, ctx.user.id))) return undefined;
  const options = { allowPrivate: config.outboundAllowPrivateNetworks, secretsKey: () => loadSecretsKey(config) };
  return {
    before: async (data) => {
      await publishPreEvent(db, site, 'PRE_USER_CREATE', data, {
        ...options,
        budgetMs: config.preEventBudgetMs,
        stateMachineArn: config.preEventStateMachineArn,
      });
    },
    after: async (user) => {
      // Fire and forget: a failure to queue is logged, never the caller's problem.
      const queue = await eventQueueFor(db, config.postEventQueueUrl, options);
      await publishPostEvent(db, site, 'POST_USER_CREATE', userRecord(user), queue).catch((error: unknown) =>
        ctx.log.error('POST_USER_CREATE could not be queued', describeError(error)),
      );
    },
  };
}
