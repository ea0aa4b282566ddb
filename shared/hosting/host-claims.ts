// Who holds a full host name platform-wide: a site's domain (`platform.domains`), a frontend
// worker's claim (`platform.hosted_domains`), or a site's own API host `<slug>.<PLATFORM_DOMAIN>`,
// which stays that site's whether or not it is still listed among its domains. One check for every
// write that gives a host to someone (site creation, domain create and change, worker create and
// change), so an API host and a worker's build never share an origin across tenants.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';

export type HostHolderKind = 'domain' | 'worker' | 'site';

export interface HostHolder {
  host: string;
  kind: HostHolderKind;
  siteId: number;
  /** For a `domain` holder: the domain row. */
  domainId?: number;
  /** For a `worker` holder: the worker's slug and name in its site. */
  workerSlug?: string;
  workerName?: string;
}

/** `shop.localhost` → `shop` under the platform domain `localhost`; undefined for any other host. */
/**
 * Serialises claims of one host until the transaction ends, whichever table they write (a domain
 * row, a worker's hosted domain, a site's API host). Taken before the holder check below, so of two
 * claims at one instant the second sees the first; the check alone let both pass when they wrote
 * different tables. PGlite has one connection, where the lock is free.
 */
export async function lockHostClaim(tx: Queryable, host: string): Promise<void> {
  await tx.run(sql`select pg_advisory_xact_lock(hashtext(${`host-claim:${host.toLowerCase()}`}))`);
}

function siteSlugOf(host: string, platformDomain: string): string | undefined {
  const suffix = `.${platformDomain}`;
  if (!host.endsWith(suffix)) return undefined;
  const label = host.slice(0, -suffix.length);
  return label === '' || label.includes('.') ? undefined : label;
}

/** Every holder of each of these hosts (lower-case, no trailing dot); a host may have several. */
export async function hostHolders(db: Queryable, hosts: readonly string[], platformDomain: string): Promise<HostHolder[]> {
  if (hosts.length === 0) return [];
  const platform = platformDomain.trim().toLowerCase().replace(/\.$/, '');
  const slugs = [...new Set(hosts.map((host) => siteSlugOf(host, platform)).filter((slug) => slug !== undefined))];
  const candidates = sql.param([...hosts]);
  const rows = await db.rows<{
    host: string;
    kind: HostHolderKind;
    site_id: number;
    domain_id: number | null;
    worker_slug: string | null;
    worker_name: string | null;
  }>(sql`
    select full_domain as host, 'worker' as kind, site_id, null::integer as domain_id, worker_slug, worker_name
      from platform.hosted_domains where full_domain = any(${candidates}::text[])
    union all
    select domain, 'domain', site_id, id, null, null from platform.domains where domain = any(${candidates}::text[])
    union all
    select slug || ${`.${platform}`}, 'site', id, null, null, null
      from platform.sites where slug = any(${sql.param(slugs)}::text[])`);
  return rows.map((row) => ({
    host: row.host,
    kind: row.kind,
    siteId: Number(row.site_id),
    domainId: row.domain_id === null ? undefined : Number(row.domain_id),
    workerSlug: row.worker_slug ?? undefined,
    workerName: row.worker_name ?? undefined,
  }));
}

/** What a write may keep of a host it already holds: a domain row it changes, a worker it moves, its own site's API host. */
export interface OwnHold {
  siteId: number;
  domainId?: number;
  workerSlug?: string;
  /** The site's own API host counts as its own (a domain re-adding it), not a worker's. */
  ownApiHost?: boolean;
}

function isOwn(holder: HostHolder, own: OwnHold | undefined): boolean {
  if (own === undefined || holder.siteId !== own.siteId) return false;
  switch (holder.kind) {
    case 'domain':
      return own.domainId !== undefined && holder.domainId === own.domainId;
    case 'worker':
      return own.workerSlug !== undefined && holder.workerSlug === own.workerSlug;
    case 'site':
      return own.ownApiHost === true;
  }
}

/** The first holder of `host` other than `own`, or undefined when the host is free for it. */
export async function otherHostHolder(db: Queryable, host: string, platformDomain: string, own?: OwnHold): Promise<HostHolder | undefined> {
  return (await hostHolders(db, [host], platformDomain)).find((holder) => !isOwn(holder, own));
}
