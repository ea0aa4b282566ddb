// For tenant routes: finds the site from the Host header or X-Tenant, and checks that a signed-in
// caller may work on it (403 otherwise). An unknown site is 404; no hint at all is 400. The tenant
// set here is the site row as stored: its schema name never comes from the request.
// A signed-in caller is read together with the site in one statement; routes marked
// `deferContext` run that statement themselves (`ctx.establish`), fusing their own read into it.
// Routes with `access: 'optional'` serve anonymous callers too (public objects), so a signed-in
// caller without access to the site is not refused here either: `ctx.hasSiteAccess` tells the
// handler, which grants such a caller no more than an anonymous one.
import type { SQL } from 'drizzle-orm';
import { BadRequestError, ForbiddenError, NotFoundError } from '#shared/errors.ts';
import { canAccessSite, siteStanding } from '#shared/tenancy/site-access.ts';
import { resolveTenant, type TenantHint, type TenantLookup } from '#shared/tenancy/resolve-tenant.ts';
import { signedInTenantContext } from '#shared/tenancy/tenant-context.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { RequestContext } from '../request-context.ts';
import type { Access } from '../route.ts';
import { assertRouteAccess } from './authenticate.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';
import type { TokenClaims } from '#shared/auth/tokens.ts';
import type { CallerCounting } from '#shared/rate-limit/counters.ts';
import { callerCounting, enforceRateLimit } from './rate-limit.ts';

function foundTenant(lookup: TenantLookup): Tenant {
  if ('found' in lookup) return lookup.found;
  if (lookup.missing === 'unknown') throw new NotFoundError('Site not found.');
  throw new BadRequestError("This endpoint is served on a site's host; call it there or send an X-Tenant header.");
}

async function establishAnonymous(ctx: RequestContext, hint: TenantHint): Promise<void> {
  ctx.tenant = foundTenant(await resolveTenant(ctx.runtime.db, hint));
}

interface Counting {
  counting: CallerCounting | undefined;
  /** Throws the 429 when the count passed a limit. */
  enforce: () => void;
}

/**
 * Caller and site in one round trip (which also counts the request against the caller's rate
 * limits), then the limits, the access rule and the caller's access to the site.
 */
async function establishSignedIn(
  ctx: RequestContext,
  claims: TokenClaims,
  hint: TenantHint,
  access: Access,
  limits: Counting,
  fused?: SQL,
): Promise<unknown> {
  const { db } = ctx.runtime;
  let context: Awaited<ReturnType<typeof signedInTenantContext>>;
  try {
    context = await signedInTenantContext(db, claims, hint, fused, limits.counting);
  } catch (error) {
    limits.enforce();
    // As on platform routes: where a caller is optional, a token that no longer counts makes them anonymous.
    if (access !== 'optional') throw error;
    await establishAnonymous(ctx, hint);
    return undefined;
  }
  limits.enforce();
  const { principal } = context;
  ctx.principal = principal;
  assertRouteAccess(principal, access);
  const tenant = foundTenant(context.lookup);
  ctx.hasSiteAccess = canAccessSite(principal, await siteStanding(db, tenant, principal.id));
  if (!ctx.hasSiteAccess && access !== 'optional') throw new ForbiddenError('You do not have access to this site.');
  ctx.tenant = tenant;
  return context.fused;
}

export function resolveTenantMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      const { route } = state.match!;
      if (route.host !== 'tenant') return;
      const hint: TenantHint = { host: ctx.request.host, tenantHeader: ctx.request.headers['x-tenant'] };
      const claims = state.claims;
      if (claims === undefined) {
        await establishAnonymous(ctx, hint);
        return;
      }
      const limits: Counting = { counting: callerCounting(request), enforce: () => enforceRateLimit(request) };
      const establish = (fused?: SQL) => establishSignedIn(ctx, claims, hint, route.access, limits, fused);
      if (route.deferContext === true) ctx.defer(establish);
      else await establish();
    },
  };
}
