// Applies the route's access rule: reads the bearer token where the route wants a caller, and
// checks the superuser flag or the permission the route names.
import { authenticateBearer } from '#shared/auth/authenticate.ts';
import { hasPermission } from '#shared/auth/principal.ts';
import { AuthenticationFailedError, PermissionDeniedError } from '#shared/errors.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';

export function authenticateMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      const access = state.match!.route.access;
      if (access === 'public') return;
      const token = ctx.request.bearerToken;
      if (access === 'optional') {
        // A stale token must not break a call that works without one (logout with an expired access token).
        if (token !== undefined) {
          ctx.principal = await authenticateBearer(ctx.runtime.db, ctx.runtime.tokens, token).catch(() => undefined);
        }
        return;
      }
      if (token === undefined) throw new AuthenticationFailedError();
      const principal = await authenticateBearer(ctx.runtime.db, ctx.runtime.tokens, token);
      ctx.principal = principal;
      if (access === 'superuser' && !principal.isSuperuser) {
        throw new PermissionDeniedError('Only superusers may perform this action.');
      }
      if (typeof access === 'object' && !hasPermission(principal, access.permission)) {
        throw new PermissionDeniedError(`The "${access.permission}" permission is required.`);
      }
    },
  };
}
