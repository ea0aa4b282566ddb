// Where a request's social apps live (DECISIONS): on the platform host, the platform's own
// providers (platform.social_apps); on a tenant host (a site's domain or X-Tenant), that site's
// (its schema). Changing platform providers needs a superuser; changing a site's needs a
// superuser or an owner of the site's organization. The scope also seals and opens its apps' secrets
// (shared/social/social-app-secret.ts), with the project's secrets key.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, PermissionDeniedError } from '#shared/errors.ts';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { SocialSecretScope } from '#shared/social/social-app-secret.ts';
import { resolveTenant } from '#shared/tenancy/resolve-tenant.ts';
import { siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export interface SocialScope {
  /** The site whose providers these are; undefined for the platform's own. */
  site?: Tenant;
  /** What a sealed secret of this scope is bound to. */
  secretScope: SocialSecretScope;
  /** The secrets key (AES-256-GCM), loaded on first use. */
  secretsKey: () => Promise<Buffer>;
}

export async function socialScope(ctx: RequestContext): Promise<SocialScope> {
  const lookup = await resolveTenant(ctx.runtime.db, { host: ctx.request.host, tenantHeader: ctx.request.headers['x-tenant'] });
  const secretsKey = () => loadSecretsKey(ctx.runtime.config);
  if ('found' in lookup) {
    const site = lookup.found;
    return { site, secretScope: { siteId: site.siteId }, secretsKey };
  }
  if (lookup.missing === 'unknown') throw new NotFoundError('Site not found.');
  return { secretScope: 'platform', secretsKey };
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
