// Which build a host serves: the hosted domain registry's `build_prefix` for a full domain, read
// by whoever serves builds (the dev server). Answers are kept a few seconds, and the local host
// mapping store (host-mappings.ts) forgets a domain as soon as it changes (activation, subdomain
// change, delete, its site's delete), so in this process a change shows at once; deployed, the
// hosting service writes the same mapping to the CloudFront KeyValueStore instead.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

const KEEP_MS = 5_000;

interface Remembered {
  buildPrefix: string | undefined;
  until: number;
}

const remembered = new BoundedMap<string, Remembered>(10_000);

/** The active build's prefix in the builds store, or undefined when the host serves no build. */
export async function activeBuildPrefix(db: Queryable, host: string): Promise<string | undefined> {
  const now = Date.now();
  const known = remembered.get(host);
  if (known !== undefined && known.until > now) return known.buildPrefix;
  const buildPrefix = await registeredBuildPrefix(db, host);
  remembered.set(host, { buildPrefix, until: now + KEEP_MS });
  return buildPrefix;
}

/** What the registry says now, without the remembered answers: for writes that must not go stale. */
export async function registeredBuildPrefix(db: Queryable, host: string): Promise<string | undefined> {
  const [row] = await db.rows<{ build_prefix: string | null }>(
    sql`select build_prefix from platform.hosted_domains where full_domain = ${host}`,
  );
  return row?.build_prefix ?? undefined;
}

/** The hosts the sites' workers claim (read by a site or organization delete before the claims go with the rows). */
export async function hostsOfSites(db: Queryable, siteIds: readonly number[]): Promise<string[]> {
  if (siteIds.length === 0) return [];
  const rows = await db.rows<{ full_domain: string }>(
    sql`select full_domain from platform.hosted_domains where site_id = any(${sql.param([...siteIds])}::int[])`,
  );
  return rows.map((row) => row.full_domain);
}

/** Called after a change to these domains is committed (a worker's, or its site's delete). */
export function forgetHostedDomains(hosts: readonly string[]): void {
  for (const host of hosts) remembered.delete(host);
}
