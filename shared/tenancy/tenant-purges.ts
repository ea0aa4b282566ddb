// The queue of deleted sites whose bytes are still in the stores (`platform.tenant_purges`): the
// console queues a site in the transaction that drops it, the maintenance sweep removes its bytes
// and then the row. Kept here because two groups use it.
import { asc, eq, inArray, sql as drizzleSql } from 'drizzle-orm';
import type { Queryable } from '#shared/db/database.ts';
import { hostedDomains, sites as sitesTable, tenantPurges } from '#shared/db/platform-schema.ts';

export interface TenantPurge {
  id: number;
  siteUuid: string;
  /** Hosts the site's workers claimed: keys of the deployed edge host map to remove. */
  hosts: string[];
  attempts: number;
}

/**
 * Queues the sites' bytes and edge host mappings for removal; call inside the transaction that
 * deletes the sites, before their rows go (their hosted domain claims cascade with them).
 */
export async function queueTenantPurges(tx: Queryable, sites: readonly { id: number; uuid: string }[]): Promise<void> {
  if (sites.length === 0) return;
  const ids = sites.map((site) => site.id);
  // The rows locked first: a worker claiming a host meanwhile commits before this reads the claims.
  await tx.query((orm) => orm.select({ id: sitesTable.id }).from(sitesTable).where(inArray(sitesTable.id, ids)).for('update'));
  const claims = await tx.query((orm) =>
    orm
      .select({ siteId: hostedDomains.siteId, host: hostedDomains.fullDomain })
      .from(hostedDomains)
      .where(inArray(hostedDomains.siteId, ids)),
  );
  await tx.query((orm) =>
    orm.insert(tenantPurges).values(
      sites.map((site) => ({
        siteUuid: site.uuid,
        hosts: claims.filter((claim) => claim.siteId === site.id).map((claim) => claim.host),
      })),
    ),
  );
}

/** The oldest queued purges, at most `limit`. */
export function queuedTenantPurges(db: Queryable, limit: number): Promise<TenantPurge[]> {
  return db.query((orm) =>
    orm
      .select({ id: tenantPurges.id, siteUuid: tenantPurges.siteUuid, hosts: tenantPurges.hosts, attempts: tenantPurges.attempts })
      .from(tenantPurges)
      .orderBy(asc(tenantPurges.id))
      .limit(limit),
  );
}

/** Every queued purge of the site is done (it may have been queued twice). */
export async function finishTenantPurges(db: Queryable, siteUuid: string): Promise<void> {
  await db.query((orm) => orm.delete(tenantPurges).where(eq(tenantPurges.siteUuid, siteUuid)));
}

/** Keeps the purge queued with what went wrong, for the next sweep and for whoever looks. */
export async function recordTenantPurgeFailure(db: Queryable, id: number, message: string): Promise<void> {
  await db.query((orm) =>
    orm
      .update(tenantPurges)
      .set({ attempts: drizzleSql`${tenantPurges.attempts} + 1`, lastError: message.slice(0, 1000) })
      .where(eq(tenantPurges.id, id)),
  );
}
