// The rules of the sites endpoints. Creating a site is one transaction: the site row, its tenant
// schema built from the template, and `<site-slug>.<PLATFORM_DOMAIN>` as its primary domain; a
// failure anywhere leaves none of them. Deleting drops the schema and the row together.
import type { Principal } from '#shared/auth/principal.ts';
import { readPostgresFailure, UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { createTenantSchema, dropTenantSchema } from '#shared/db/tenant-schemas.ts';
import { ConflictError, ValidationError } from '#shared/errors.ts';
import { lockHostClaim, otherHostHolder } from '#shared/hosting/host-claims.ts';
import { forgetHostedDomains, hostsOfSites } from '#shared/hosting/hosted-domains.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { siteStanding, effectiveSitePermissions, type SitePermission } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { queueTenantPurges } from '#shared/tenancy/tenant-purges.ts';
import { looksLikeUuid, slugFrom, uniqueSlug, UUID_SHAPED_SLUG } from '#shared/text/slugs.ts';
import { organizationForAction, visibleOrganization } from '../access/organization-access.ts';
import { insertDomain } from './domain-repository.ts';
import { siteHost } from './domain-names.ts';
import {
  activeDomainsOfSite,
  deleteSiteRow,
  findSite,
  insertSite,
  listSites,
  schemaNamesLike,
  siteSlugsLike,
  updateSite,
  type SiteDomainSummary,
  type SiteWithOrganization,
} from './site-repository.ts';
import { siteForAction, siteForManagers, visibleSite } from './site-lookup.ts';
import type { CreateSiteBody, ListSitesQuery, UpdateSiteBody } from './site-schemas.ts';
import { escapeLike } from '#shared/text/like-patterns.ts';

export interface SiteServicePorts {
  db: Queryable;
  platformDomain: string;
}

/** `config` would collide with `/api/sites/config/` (DECISIONS). */
const RESERVED_SITE_SLUGS: ReadonlySet<string> = new Set(['config']);
const SCHEMA_PREFIX = 'site_';

/** `acme-eu` → `site_acme_eu`: a plain identifier of at most 55 characters (slugs have at most 50). */
export function schemaNameFor(slug: string): string {
  return `${SCHEMA_PREFIX}${slug.replace(/-/g, '_')}`;
}

/**
 * Slugs already used by a site, and slugs whose schema name is taken by a schema that belongs to no
 * site (left behind by hand, say), so a new site never runs into either.
 */
async function takenSlugs(db: Queryable, base: string): Promise<string[]> {
  const schemaBase = escapeLike(schemaNameFor(base));
  const [slugs, schemas] = await Promise.all([siteSlugsLike(db, base), schemaNamesLike(db, `${schemaBase}%`)]);
  return [...slugs, ...schemas.map((name) => name.slice(SCHEMA_PREFIX.length).replace(/_/g, '-'))];
}

function asCreationConflict(error: unknown): unknown {
  if (error instanceof UniqueViolationError) {
    return new ConflictError('Another site was created with the same name at the same moment; try again.', { cause: error });
  }
  // 42P06: the schema appeared between choosing its name and creating it.
  if (readPostgresFailure(error)?.code === '42P06') {
    return new ConflictError("The site's schema name is already in use; try again.", { cause: error });
  }
  return error;
}

/** How many slugs whose host a worker or domain holds are passed over before giving up. */
const HOST_TRIES = 20;

/**
 * The first free slug whose API host `<slug>.<PLATFORM_DOMAIN>` nobody holds either (a frontend
 * worker of another site, say: shared/hosting/host-claims.ts), as `config` becomes `config-2`.
 */
async function slugWithFreeHost(tx: Queryable, base: string, platformDomain: string): Promise<string> {
  const passed = new Set(RESERVED_SITE_SLUGS);
  for (let attempt = 0; attempt < HOST_TRIES; attempt += 1) {
    const slug = await uniqueSlug(base, (candidate) => takenSlugs(tx, candidate), { reserved: passed });
    const host = siteHost(slug, platformDomain);
    // Held to the commit, so a domain or worker claiming this host now waits and then sees the site.
    await lockHostClaim(tx, host);
    if ((await otherHostHolder(tx, host, platformDomain)) === undefined) return slug;
    passed.add(slug);
  }
  throw new ConflictError(`The host ${siteHost(base, platformDomain)} and its numbered variants are taken; choose another name.`);
}

export async function createSite(
  ports: SiteServicePorts,
  caller: Principal,
  organizationSlug: string,
  body: CreateSiteBody,
): Promise<SiteWithOrganization> {
  const { organization } = await organizationForAction(ports.db, caller, organizationSlug, 'manage_sites');
  const base = (await slugFrom(body.name)) || 'site';
  // Lookups take a UUID where a slug goes, so a slug of that form would shadow another site.
  if (looksLikeUuid(base)) throw ValidationError.forFields({ name: [UUID_SHAPED_SLUG.name] });
  try {
    const site = await ports.db.transaction(async (tx) => {
      const slug = await slugWithFreeHost(tx, base, ports.platformDomain);
      const row = await insertSite(tx, {
        organizationId: organization.id,
        slug,
        name: body.name,
        description: body.description ?? '',
        environment: body.environment ?? 'production',
        schemaName: schemaNameFor(slug),
      });
      await createTenantSchema(tx, row.schemaName);
      await insertDomain(tx, { siteId: row.id, domain: siteHost(slug, ports.platformDomain), isPrimary: true, isActive: true });
      return row;
    });
    return { site, organization: { id: organization.id, uuid: organization.uuid, slug: organization.slug, name: organization.name } };
  } catch (error) {
    throw asCreationConflict(error);
  }
}

export async function listAccessibleSites(ports: SiteServicePorts, caller: Principal, query: ListSitesQuery) {
  return listSites(ports.db, {
    scope: { sites: 'accessible', caller },
    search: query.search,
    environment: query.environment,
    page: toPageRequest(query),
  });
}

export async function listOrganizationSites(ports: SiteServicePorts, caller: Principal, organizationSlug: string, query: ListSitesQuery) {
  const { organization } = await visibleOrganization(ports.db, caller, organizationSlug);
  return listSites(ports.db, {
    scope: { sites: 'accessible', caller },
    organizationId: organization.id,
    search: query.search,
    environment: query.environment,
    page: toPageRequest(query),
  });
}

export async function getSite(ports: SiteServicePorts, caller: Principal, slugOrUuid: string): Promise<SiteWithOrganization> {
  const { site, organization } = await visibleSite(ports.db, caller, slugOrUuid);
  return { site, organization };
}

export async function changeSite(
  ports: SiteServicePorts,
  caller: Principal,
  slugOrUuid: string,
  changes: UpdateSiteBody,
): Promise<SiteWithOrganization> {
  const { site, organization } = await siteForAction(ports.db, caller, slugOrUuid, ['manage_site', 'admin_site']);
  if (Object.values(changes).every((value) => value === undefined)) return { site, organization };
  const updated = await updateSite(ports.db, site.id, {
    name: changes.name,
    description: changes.description,
    environment: changes.environment,
    isActive: changes.is_active,
  });
  return { site: updated, organization };
}

/**
 * Drops the tenant schema and the site row (domains and user permissions cascade) together, and
 * queues the site's bytes in the stores (objects, hosted builds) and its hosts on the deployed edge
 * for the maintenance sweep, in the
 * same transaction: the site is gone as a whole or not at all, and its bytes follow.
 */
export async function deleteSite(ports: SiteServicePorts, caller: Principal, slugOrUuid: string): Promise<void> {
  const { site } = await siteForManagers(ports.db, caller, slugOrUuid);
  const hosts = await ports.db.transaction(async (tx) => {
    // Queued first: it reads the site's hosted domain claims, which go with its row.
    await queueTenantPurges(tx, [{ id: site.id, uuid: site.uuid }]);
    const claimed = await hostsOfSites(tx, [site.id]);
    await deleteSiteRow(tx, site.id);
    await dropTenantSchema(tx, site.schemaName);
    return claimed;
  });
  // This process's build server stops serving the workers' hosts at once, as a worker delete does.
  forgetHostedDomains(hosts);
}

export async function sitePrivileges(ports: SiteServicePorts, caller: Principal, slugOrUuid: string): Promise<SitePermission[]> {
  return (await visibleSite(ports.db, caller, slugOrUuid)).permissions;
}

export interface SiteConfiguration {
  site: SiteWithOrganization;
  domains: SiteDomainSummary[];
  permissions: SitePermission[];
}

/** The resolved tenant's configuration; the tenant middleware already checked the caller's access. */
export async function siteConfiguration(ports: SiteServicePorts, caller: Principal, tenant: Tenant): Promise<SiteConfiguration> {
  const site = await findSite(ports.db, tenant.uuid);
  const [domains, standing] = await Promise.all([activeDomainsOfSite(ports.db, tenant.siteId), siteStanding(ports.db, tenant, caller.id)]);
  return { site: site!, domains, permissions: effectiveSitePermissions(caller, standing) };
}
