// Checks and resolves what a membership or invitation hands out: group identifiers (ids or names)
// must name existing groups; sites must belong to this organization; permissions must be site
// permission names. Anything else is a 400 on the field that named it.
import type { Queryable } from '#shared/db/database.ts';
import { ValidationError } from '#shared/errors.ts';
import { findGroups, findOrganizationSites, permissionIds, type GroupRef, type SiteGrant } from './grants-repository.ts';

export const DEFAULT_SITE_PERMISSIONS = ['view_site'] as const;

export function sitePermissionsOrDefault(permissions: string[] | undefined): string[] {
  const unique = [...new Set(permissions ?? [])];
  return unique.length > 0 ? unique : [...DEFAULT_SITE_PERMISSIONS];
}

/** Resolves ids and names to existing groups; `strict` refuses any that is missing. */
export async function resolveGroups(
  db: Queryable,
  identifiers: ReadonlyArray<number | string>,
  field: string,
  strict = true,
): Promise<GroupRef[]> {
  const ids = identifiers.filter((item): item is number => typeof item === 'number');
  const names = identifiers.filter((item): item is string => typeof item === 'string');
  const found = await findGroups(db, ids, names);
  const missing = identifiers.filter((item) => !found.some((group) => group.id === item || group.name === item));
  if (strict && missing.length > 0) {
    throw ValidationError.forFields({ [field]: [`Unknown group(s): ${missing.join(', ')}.`] });
  }
  return [...new Map(found.map((group) => [group.id, group])).values()];
}

export interface SiteRequest {
  /** The site's slug or UUID, as `by` says. */
  key: string;
  permissions?: string[];
}

/**
 * Resolves site requests against the organization's own sites. `strict` refuses a site that is not
 * (or no longer) the organization's; otherwise it is skipped (an invitation accepted after the site
 * was deleted).
 */
export async function resolveSiteGrants(
  db: Queryable,
  organizationId: number,
  requests: readonly SiteRequest[],
  by: 'slug' | 'uuid',
  field: string,
  strict = true,
): Promise<SiteGrant[]> {
  if (requests.length === 0) return [];
  const keys = requests.map((request) => (by === 'uuid' ? request.key.toLowerCase() : request.key));
  const found = await findOrganizationSites(db, organizationId, by === 'slug' ? { slugs: keys } : { uuids: keys });
  const siteByKey = new Map(found.map((site) => [by === 'slug' ? site.slug : site.uuid, site]));
  const missing = keys.filter((key) => !siteByKey.has(key));
  if (strict && missing.length > 0) {
    throw ValidationError.forFields({ [field]: [`Not a site of this organization: ${missing.join(', ')}.`] });
  }
  const codenames = [...new Set(requests.flatMap((request) => sitePermissionsOrDefault(request.permissions)))];
  const ids = await permissionIds(db, codenames, 'site');
  const unknown = codenames.filter((codename) => !ids.has(codename));
  if (unknown.length > 0) {
    throw ValidationError.forFields({ [field]: [`Unknown site permission(s): ${unknown.join(', ')}.`] });
  }
  const grants = new Map<number, Set<number>>();
  requests.forEach((request, index) => {
    const site = siteByKey.get(keys[index]!);
    if (site === undefined) return;
    const set = grants.get(site.id) ?? new Set<number>();
    for (const codename of sitePermissionsOrDefault(request.permissions)) set.add(ids.get(codename)!);
    grants.set(site.id, set);
  });
  return [...grants].map(([siteId, permissionSet]) => ({ siteId, permissionIds: [...permissionSet] }));
}
