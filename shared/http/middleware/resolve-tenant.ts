// For tenant routes: finds the site from the Host header or X-Tenant, and checks that a signed-in
// caller may work on it (403 otherwise). An unknown site is 404; no hint at all is 400. The tenant
// set here is the site row as stored: its schema name never comes from the request.
// A signed-in caller is read together with the site in one statement; routes marked
// `deferContext` run that statement themselves (`ctx.establish`), fusing their own read into it.
// Routes with `access: 'optional'` serve anonymous callers too (public objects), so a signed-in
// caller without access to the site is not refused here either: `ctx.hasSiteAccess` tells the
// handler, which grants such a caller no more than an anonymous one.
// On routes that name an app, the caller's role grants there are read in the same statement when the
// host's site schema is known from an earlier request (`schemaGuesses`); the guess is checked
// against the site the statement resolves, and a wrong or missing one costs the separate read.
import { BadRequestError, ForbiddenError, NotFoundError } from '#shared/errors.ts';
import { appSlugOfRoute, holdsAnyRole, rolePermissionsInApp } from '#shared/tenancy/role-grants.ts';
import { effectiveSitePermissions, rememberStanding, siteStanding } from '#shared/tenancy/site-access.ts';
import { resolveTenant, type TenantHint, type TenantLookup } from '#shared/tenancy/resolve-tenant.ts';
import { signedInTenantContext, type ContextRead, type RolesGuess } from '#shared/tenancy/tenant-context.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { RequestContext } from '../request-context.ts';
import type { AnyRoute } from '../route.ts';
import { assertRouteAccess } from './authenticate.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';
import type { TokenClaims } from '#shared/auth/tokens.ts';
import type { CallerCounting } from '#shared/rate-limit/counters.ts';
import { callerCounting, enforceRateLimit } from './rate-limit.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

function foundTenant(lookup: TenantLookup): Tenant {
  if ('found' in lookup) return lookup.found;
  if (lookup.missing === 'unknown') throw new NotFoundError('Site not found.');
  throw new BadRequestError("This endpoint is served on a site's host; call it there or send an X-Tenant header.");
}

async function establishAnonymous(ctx: RequestContext, hint: TenantHint): Promise<void> {
  ctx.tenant = foundTenant(await resolveTenant(ctx.runtime.db, hint));
}

/**
 * Whether the caller may work on the site for this route: their site permissions, plus on a route
 * that names an app what their roles grant there (remembered for the request's later checks), plus,
 * where the route lets role holders reach it, any unexpired role. The role reads cost a statement
 * only for callers whose site permissions do not already cover everything a role could add.
 */
async function reachesSite(
  ctx: RequestContext,
  tenant: Tenant,
  route: AnyRoute,
  params: unknown,
  fusedRolePermissions: string[] | undefined,
): Promise<boolean> {
  const { db } = ctx.runtime;
  const principal = ctx.principal!;
  const standing = await siteStanding(db, tenant, principal.id);
  const held = effectiveSitePermissions(principal, standing);
  const appSlug = appSlugOfRoute(route.path, params);
  if (appSlug !== undefined && !(held.includes('manage_site') && held.includes('access_site'))) {
    const granted = fusedRolePermissions ?? (await rolePermissionsInApp(db, tenant, principal.id, appSlug));
    if (granted.length > 0) rememberStanding(tenant, principal.id, { ...standing, appPermissions: granted });
    return held.length > 0 || granted.length > 0;
  }
  if (held.length > 0) return true;
  return route.roleHoldersReach === true && (await holdsAnyRole(db, tenant, principal.id));
}

/** The schema each host (and X-Tenant) resolved to last: only a guess, checked on every use. */
const SCHEMA_GUESS_LIMIT = 2_000;
const schemaGuesses = new BoundedMap<string, string>(SCHEMA_GUESS_LIMIT);

function guessKey(hint: TenantHint): string {
  return `${hint.host}\n${hint.tenantHeader ?? ''}`;
}

/**
 * Whether a caller held any role on a site's schema when last seen, by subject and schema: only a
 * guess of whether to fuse the read of their grants, whose answer is checked on every request.
 */
const HOLDER_GUESS_LIMIT = 10_000;
const roleHolderGuesses = new BoundedMap<string, boolean>(HOLDER_GUESS_LIMIT);

function holderKey(subject: string, schemaName: string): string {
  return `${subject}\n${schemaName}`;
}

/**
 * The roles read to fuse into the context statement, when the route names an app and the schema can
 * be guessed: their grants in the app for a caller not known to hold none, else only whether any is held.
 */
function rolesGuess(hint: TenantHint, route: AnyRoute, params: unknown, subject: string): RolesGuess | undefined {
  const appSlug = appSlugOfRoute(route.path, params);
  const schemaName = appSlug === undefined ? undefined : schemaGuesses.get(guessKey(hint));
  if (schemaName === undefined) return undefined;
  return { site: { schemaName }, appSlug: appSlug!, grants: roleHolderGuesses.get(holderKey(subject, schemaName)) !== false };
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
  route: AnyRoute,
  params: unknown,
  limits: Counting,
  fused?: ContextRead,
): Promise<unknown> {
  const { db } = ctx.runtime;
  let context: Awaited<ReturnType<typeof signedInTenantContext>>;
  try {
    context = await signedInTenantContext(
      db,
      claims,
      hint,
      fused,
      limits.counting,
      rolesGuess(hint, route, params, claims.subject),
      ctx.runtime.config.tokens.contextReuseMs,
    );
  } catch (error) {
    limits.enforce();
    // As on platform routes: where a caller is optional, a token that no longer counts makes them anonymous.
    if (route.access !== 'optional') throw error;
    await establishAnonymous(ctx, hint);
    return undefined;
  }
  limits.enforce();
  const { principal } = context;
  ctx.principal = principal;
  assertRouteAccess(principal, route.access);
  const tenant = foundTenant(context.lookup);
  schemaGuesses.set(guessKey(hint), tenant.schemaName);
  if (context.holdsRoles !== undefined) roleHolderGuesses.set(holderKey(claims.subject, tenant.schemaName), context.holdsRoles);
  ctx.hasSiteAccess = await reachesSite(ctx, tenant, route, params, context.rolePermissions);
  if (!ctx.hasSiteAccess && route.access !== 'optional') throw new ForbiddenError('You do not have access to this site.');
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
      const establish = (fused?: ContextRead) => establishSignedIn(ctx, claims, hint, route, state.input?.params, limits, fused);
      if (route.deferContext === true) ctx.defer(establish);
      else await establish();
    },
  };
}
