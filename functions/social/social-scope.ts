// Where a request's social apps live (DECISIONS): on the platform host, the platform's own
// providers (platform.social_apps); on a tenant host (a site's domain or X-Tenant), that site's
// (its schema). Changing platform providers needs a superuser; changing a site's needs a
// superuser or an owner of the site's organization.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, PermissionDeniedError } from '#shared/errors.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { resolveTenant } from '#shared/tenancy/resolve-tenant.ts';
import { siteStanding } from '#shared/tenancy/site-access.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export interface SocialScope {
  /** The site whose providers these are; undefined for the platform's own. */
  site?: Tenant;
  apps: SQL;
  accounts: SQL;
}

export async function socialScope(ctx: RequestContext): Promise<SocialScope> {
  const lookup = await resolveTenant(ctx.runtime.db, { host: ctx.request.host, tenantHeader: ctx.request.headers['x-tenant'] });
  if ('found' in lookup) {
    const site = lookup.found;
    return { site, apps: tenantTable(site, 'social_apps'), accounts: tenantTable(site, 'social_accounts') };
  }
  if (lookup.missing === 'unknown') throw new NotFoundError('Site not found.');
  return { apps: sql`platform.social_apps`, accounts: sql`platform.social_accounts` };
}

export async function assertManagesSocialApps(db: Queryable, scope: SocialScope, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (scope.site !== undefined && (await siteStanding(db, scope.site, caller.id)).membership?.isOwner === true) return;
  throw new PermissionDeniedError(
    scope.site === undefined
      ? "Only superusers may change the platform's sign-in providers."
      : "Changing a site's sign-in providers needs a superuser or an owner of its organization.",
  );
}
