// The queue of deleted sites whose bytes are still in the stores (`platform.tenant_purges`): the
// console queues a site in the transaction that drops it, the maintenance sweep removes its bytes
// and then the row. Kept here because two groups use it.
import { asc, eq, sql as drizzleSql } from 'drizzle-orm';
import type { Queryable } from '#shared/db/database.ts';
import { tenantPurges } from '#shared/db/platform-schema.ts';

export interface TenantPurge {
  id: number;
  siteUuid: string;
  attempts: number;
}

/** Queues the sites' bytes for removal; call inside the transaction that deletes the sites. */
export async function queueTenantPurges(tx: Queryable, siteUuids: readonly string[]): Promise<void> {
  if (siteUuids.length === 0) return;
  await tx.query((orm) => orm.insert(tenantPurges).values(siteUuids.map((siteUuid) => ({ siteUuid }))));
}

/** The oldest queued purges, at most `limit`. */
export function queuedTenantPurges(db: Queryable, limit: number): Promise<TenantPurge[]> {
  return db.query((orm) =>
    orm
      .select({ id: tenantPurges.id, siteUuid: tenantPurges.siteUuid, attempts: tenantPurges.attempts })
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
