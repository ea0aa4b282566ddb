// Applies the route's access rule: reads the bearer token where the route wants a caller, and
// checks the superuser flag or the permission the route names. On tenant routes the token is only
// verified here: the tenant middleware reads the caller together with the site, in one round trip.
import { authenticateBearer } from '#shared/auth/authenticate.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import { AuthenticationFailedError, PermissionDeniedError } from '#shared/errors.ts';
import type { Access } from '../route.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';
import { callerCounting, enforceRateLimit } from './rate-limit.ts';

/** The superuser or permission part of an access rule, for a caller already known. */
export function assertRouteAccess(principal: Principal, access: Access): void {
  if (access === 'superuser' && !principal.isSuperuser) {
    throw new PermissionDeniedError('Only superusers may perform this action.');
  }
  if (typeof access === 'object' && !hasPermission(principal, access.permission)) {
    throw new PermissionDeniedError(`The "${access.permission}" permission is required.`);
  }
}

export function authenticateMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      // No route: parse-request answers the 404 or 405 (after the rate limit has counted it).
      if (state.match === undefined) return;
      const { access, host } = state.match.route;
      if (access === 'public') return;
      const token = ctx.request.bearerToken;
      if (token === undefined) {
        if (access === 'optional') return;
        throw new AuthenticationFailedError();
      }
      if (host === 'tenant') {
        // A stale token must not break a call that works without one; the caller is then anonymous.
        const verifying = ctx.runtime.tokens.verify(token, 'access');
        state.claims = access === 'optional' ? await verifying.catch(() => undefined) : await verifying;
        return;
      }
      // The caller's read also counts the request against their rate limits.
      const counting = callerCounting(request);
      if (access === 'optional') {
        ctx.principal = await authenticateBearer(ctx.runtime.db, ctx.runtime.tokens, token, counting).catch(() => undefined);
        enforceRateLimit(request);
        return;
      }
      const principal = await authenticateBearer(ctx.runtime.db, ctx.runtime.tokens, token, counting);
      ctx.principal = principal;
      enforceRateLimit(request);
      assertRouteAccess(principal, access);
    },
  };
}
