// For tenant routes: finds the site from the Host header or X-Tenant, and checks that a signed-in
// caller may work on it (403 otherwise). An unknown site is 404; no hint at all is 400. The tenant
// set here is the site row as stored: its schema name never comes from the request.
// Routes with `access: 'optional'` serve anonymous callers too (public objects), so a signed-in
// caller without access to the site is not refused here either: `ctx.hasSiteAccess` tells the
// handler, which grants such a caller no more than an anonymous one.
import { BadRequestError, ForbiddenError, NotFoundError } from '#shared/errors.ts';
import { canAccessSite, siteStanding } from '#shared/tenancy/site-access.ts';
import { resolveTenant } from '#shared/tenancy/resolve-tenant.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';

export function resolveTenantMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      if (state.match!.route.host !== 'tenant') return;
      const principal = ctx.principal;
      const lookup = await resolveTenant(
        ctx.runtime.db,
        { host: ctx.request.host, tenantHeader: ctx.request.headers['x-tenant'] },
        principal?.id,
      );
      if ('missing' in lookup) {
        if (lookup.missing === 'unknown') throw new NotFoundError('Site not found.');
        throw new BadRequestError("This endpoint is served on a site's host; call it there or send an X-Tenant header.");
      }
      const tenant = lookup.found;
      if (principal !== undefined) {
        // Read with the site in the same query; this call only picks it up.
        const standing = await siteStanding(ctx.runtime.db, tenant, principal.id);
        ctx.hasSiteAccess = canAccessSite(principal, standing);
        if (!ctx.hasSiteAccess && state.match!.route.access !== 'optional') {
          throw new ForbiddenError('You do not have access to this site.');
        }
      }
      ctx.tenant = tenant;
    },
  };
}
