// A site as the caller may see it: callers without any access get 404 (so slugs and UUIDs cannot be
// probed); callers who see it but lack the permission an action needs get 403.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, PermissionDeniedError } from '#shared/errors.ts';
import {
  effectiveSitePermissions,
  managesSites,
  siteStanding,
  type SitePermission,
  type SiteStanding,
} from '#shared/tenancy/site-access.ts';
import { findSite, type SiteWithOrganization } from './site-repository.ts';

export interface VisibleSite extends SiteWithOrganization {
  standing: SiteStanding;
  /** The caller's effective site permissions. */
  permissions: SitePermission[];
  /** The caller manages every site of the organization (admin, owner, manage_organization, manage_sites). */
  managed: boolean;
}

export async function visibleSite(db: Queryable, principal: Principal, slugOrUuid: string): Promise<VisibleSite> {
  const found = await findSite(db, slugOrUuid);
  if (found === undefined) throw new NotFoundError('Site not found.');
  // Permissions given on the site count only for members of its organization (site-access.ts).
  const standing = await siteStanding(db, { siteId: found.site.id, organizationId: found.site.organizationId }, principal.id);
  const permissions = effectiveSitePermissions(principal, standing);
  if (permissions.length === 0) throw new NotFoundError('Site not found.');
  return { ...found, standing, permissions, managed: managesSites(principal, standing) };
}

/** The visible site, and the caller holds one of `anyOf` on it (managers hold them all). */
export async function siteForAction(
  db: Queryable,
  principal: Principal,
  slugOrUuid: string,
  anyOf: readonly SitePermission[],
): Promise<VisibleSite> {
  const site = await visibleSite(db, principal, slugOrUuid);
  if (!anyOf.some((codename) => site.permissions.includes(codename))) {
    throw new PermissionDeniedError('You do not have permission to do this on this site.');
  }
  return site;
}

/** The visible site, and the caller manages its organization's sites. */
export async function siteForManagers(db: Queryable, principal: Principal, slugOrUuid: string): Promise<VisibleSite> {
  const site = await visibleSite(db, principal, slugOrUuid);
  if (!site.managed) throw new PermissionDeniedError('Only managers of the organization may do this.');
  return site;
}
