// The rules of the domains endpoints: who may change a site's domains (its organization's site
// managers and holders of manage_site or admin_site), valid host names, a domain belonging to one
// site platform-wide, and exactly one active primary per site (a new primary demotes the old one in
// the same transaction; the primary itself cannot be unset, deactivated or deleted).
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { DomainRow } from '#shared/db/platform-schema.ts';
import { BusinessLogicError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { lockHostClaim, otherHostHolder } from '#shared/hosting/host-claims.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { deleteDomain, demotePrimary, findDomain, hasPrimary, insertDomain, listDomains, updateDomain } from './domain-repository.ts';
import { domainProblem, normalizeHost } from './domain-names.ts';
import { siteForAction, visibleSite, type VisibleSite } from './site-lookup.ts';
import type { CreateDomainBody, DomainChanges } from './site-schemas.ts';

export interface DomainServicePorts {
  db: Queryable;
  platformDomain: string;
}

const TAKEN = 'This domain is already registered.';
const DOMAIN_EDITORS = ['manage_site', 'admin_site'] as const;

function checkedHost(ports: DomainServicePorts, site: VisibleSite, raw: string): string {
  const host = normalizeHost(raw);
  const problem = domainProblem(host, site.site, ports.platformDomain);
  if (problem !== undefined) throw ValidationError.forFields({ domain: [problem] });
  return host;
}

/**
 * Refuses a host another domain row, a frontend worker (of any site) or another site's own API host
 * holds (shared/hosting/host-claims.ts); the site's own API host stays its own to list again. Runs
 * in the transaction that writes the domain and takes the host's claim lock first, so a claim of
 * the same host in another table at the same instant is either seen here or waits for this one.
 */
async function assertFree(
  tx: Queryable,
  ports: DomainServicePorts,
  site: VisibleSite,
  host: string,
  exceptDomainId?: number,
): Promise<void> {
  await lockHostClaim(tx, host);
  const own = { siteId: site.site.id, domainId: exceptDomainId, ownApiHost: true };
  if ((await otherHostHolder(tx, host, ports.platformDomain, own)) !== undefined) {
    throw ValidationError.forFields({ domain: [TAKEN] });
  }
}

/** A race past the check above ends as the same field error, from the unique index. */
function asTakenError(error: unknown): unknown {
  if (error instanceof UniqueViolationError && error.constraint?.includes('domain_unique')) {
    return ValidationError.forFields({ domain: [TAKEN] });
  }
  return error;
}

export async function listSiteDomains(ports: DomainServicePorts, caller: Principal, siteSlug: string, page: PageRequest) {
  const site = await visibleSite(ports.db, caller, siteSlug);
  return { site, page: await listDomains(ports.db, site.site.id, page) };
}

export async function getDomain(ports: DomainServicePorts, caller: Principal, siteSlug: string, domainSlug: string) {
  const site = await visibleSite(ports.db, caller, siteSlug);
  const domain = await findDomain(ports.db, site.site.id, domainSlug);
  if (domain === undefined) throw new NotFoundError('Domain not found.');
  return { site, domain };
}

export async function addDomain(ports: DomainServicePorts, caller: Principal, siteSlug: string, body: CreateDomainBody) {
  const site = await siteForAction(ports.db, caller, siteSlug, DOMAIN_EDITORS);
  const host = checkedHost(ports, site, body.domain);
  try {
    const domain = await ports.db.transaction(async (tx) => {
      await assertFree(tx, ports, site, host);
      // A site's first domain is its primary whatever the body says.
      const primary = body.is_primary === true || !(await hasPrimary(tx, site.site.id));
      if (primary && body.is_active === false) {
        throw ValidationError.forFields({ is_active: ['The primary domain must be active.'] });
      }
      if (primary) await demotePrimary(tx, site.site.id);
      return insertDomain(tx, { siteId: site.site.id, domain: host, isPrimary: primary, isActive: body.is_active ?? true });
    });
    return { site, domain };
  } catch (error) {
    throw asTakenError(error);
  }
}

export async function changeDomain(
  ports: DomainServicePorts,
  caller: Principal,
  siteSlug: string,
  domainSlug: string,
  changes: DomainChanges,
): Promise<{ site: VisibleSite; domain: DomainRow }> {
  const site = await siteForAction(ports.db, caller, siteSlug, DOMAIN_EDITORS);
  const current = await findDomain(ports.db, site.site.id, domainSlug);
  if (current === undefined) throw new NotFoundError('Domain not found.');
  const host = changes.domain === undefined ? undefined : checkedHost(ports, site, changes.domain);
  const primary = changes.is_primary ?? current.isPrimary;
  const active = changes.is_active ?? current.isActive;
  if (current.isPrimary && !primary) {
    throw ValidationError.forFields({ is_primary: ['A site keeps one primary domain: make another domain primary instead.'] });
  }
  if (primary && !active) throw ValidationError.forFields({ is_active: ['The primary domain must be active.'] });
  try {
    const domain = await ports.db.transaction(async (tx) => {
      if (host !== undefined && host !== current.domain) await assertFree(tx, ports, site, host, current.id);
      if (primary && !current.isPrimary) await demotePrimary(tx, site.site.id, current.id);
      return updateDomain(tx, current.id, { domain: host, isPrimary: primary, isActive: active });
    });
    return { site, domain };
  } catch (error) {
    throw asTakenError(error);
  }
}

export async function removeDomain(ports: DomainServicePorts, caller: Principal, siteSlug: string, domainSlug: string): Promise<void> {
  const site = await siteForAction(ports.db, caller, siteSlug, DOMAIN_EDITORS);
  const domain = await findDomain(ports.db, site.site.id, domainSlug);
  if (domain === undefined) throw new NotFoundError('Domain not found.');
  if (domain.isPrimary) {
    throw new BusinessLogicError('The primary domain cannot be deleted: make another domain primary first.');
  }
  await deleteDomain(ports.db, domain.id);
}
