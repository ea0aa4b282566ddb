// The storage maintenance sweep, run on a schedule (an EventBridge rule deployed, a timer in the dev
// server, and once before the dev server listens). It finishes what requests leave to later:
// - deleted sites: their hosts in the edge's host map (deployed), their bytes in the object store
//   and the builds store (all under `<site uuid>/`), queued by the delete's own transaction
//   (tenant-purges.ts); a row goes only once all three are done;
// - presigned uploads never completed, an hour after their URL expired: records and bytes;
// - queued discards a storage failure left behind;
// - bytes no record points at (a process killed between storing bytes and committing their record)
//   and temporary files of writes that never finished, once untouched for the grace period: a
//   younger file may belong to an upload whose record is about to commit. The store is listed a
//   bounded slice per run, each run going on where the last stopped.
// Every step is safe to repeat and one site's failure does not stop the others.
import type { Queryable } from '#shared/db/database.ts';
import type { HostMappingStore } from '#shared/hosting/host-mappings.ts';
import { registeredBuildPrefix } from '#shared/hosting/hosted-domains.ts';
import { describeError, type RequestLog } from '#shared/logger.ts';
import { DELETE_BATCH_SIZE, type ListedKey, type ObjectStore } from '#shared/storage/object-store.ts';
import { finishTenantPurges, queuedTenantPurges, recordTenantPurgeFailure } from '#shared/tenancy/tenant-purges.ts';
import { queueDiscards } from '../discard-repository.ts';
import { takeStalePendingObjects } from '../objects/object-repository.ts';
import { ABANDONED_UPLOAD_GRACE_SECONDS } from '../objects/presigned-uploads.ts';
import { flushDiscards, removeFromStore } from '../stored-bytes.ts';
import {
  keepSweepPosition,
  objectStoreBucketIds,
  referencedStorageKeys,
  sitesOfStore,
  sweepPosition,
  type SiteOfStore,
} from './maintenance-repository.ts';

export interface MaintenancePorts {
  db: Queryable;
  objectStore: ObjectStore;
  /** Hosted builds' files; they live under the site's uuid like objects. */
  buildStore: ObjectStore;
  /** Where the edge learns which build a host serves (deployed: the CloudFront KeyValueStore). */
  hostMappings: HostMappingStore;
  log: RequestLog;
}

export interface MaintenanceOptions {
  /** How long bytes and temporary files must have been left untouched before a sweep removes them. */
  graceSeconds: number;
  presignedUrlTtlSeconds: number;
  /** Keys of the object store the orphan sweep lists in one run; the next run goes on from there. */
  orphanKeysPerRun: number;
}

export interface MaintenanceReport {
  purgedSites: number;
  sweptUploads: number;
  /** Keys the orphan sweep listed in this run (at most `orphanKeysPerRun`). */
  listedKeys: number;
  removedOrphans: number;
  removedTemporaries: number;
  failures: string[];
}

const PURGES_PER_RUN = 100;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/**
 * The shape of the keys the storage service makes for the object store (`<site>/<bucket>/<upload>`,
 * stored-bytes.ts). Only such keys can be orphans: anything else in a bucket that is shared with
 * something else (an S3-compatible endpoint of the operator's) is not ours to remove.
 */
const SERVICE_KEY = new RegExp(`^${UUID}/${UUID}/${UUID}$`);

/** Removes every key under `prefix`, a batch at a time; a store failure throws, a rerun goes on. */
async function removeAllUnder(store: ObjectStore, prefix: string): Promise<void> {
  if (store.listKeys === undefined) return;
  let batch: string[] = [];
  for await (const { key } of store.listKeys(prefix)) {
    batch.push(key);
    if (batch.length === DELETE_BATCH_SIZE) {
      await removeFromStore(store, batch);
      batch = [];
    }
  }
  await removeFromStore(store, batch);
}

async function purgeDeletedSites(ports: MaintenancePorts, report: MaintenanceReport): Promise<void> {
  for (const purge of await queuedTenantPurges(ports.db, PURGES_PER_RUN)) {
    try {
      // The edge stops sending the site's hosts to its builds first, then the builds go.
      await ports.hostMappings.refresh(purge.hosts, (host) => registeredBuildPrefix(ports.db, host));
      await removeAllUnder(ports.objectStore, `${purge.siteUuid}/`);
      await removeAllUnder(ports.buildStore, `${purge.siteUuid}/`);
      await finishTenantPurges(ports.db, purge.siteUuid);
      report.purgedSites += 1;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.failures.push(`purge of site ${purge.siteUuid}: ${message}`);
      await recordTenantPurgeFailure(ports.db, purge.id, message);
    }
  }
}

/** Abandoned presigned uploads go to the discard queue, and the queue is flushed, bucket by bucket. */
async function sweepSiteBuckets(ports: MaintenancePorts, site: SiteOfStore, options: MaintenanceOptions, report: MaintenanceReport) {
  const age = options.presignedUrlTtlSeconds + ABANDONED_UPLOAD_GRACE_SECONDS;
  for (const bucketId of await objectStoreBucketIds(ports.db, site)) {
    report.sweptUploads += await ports.db.transaction(async (tx) => {
      const keys = await takeStalePendingObjects(tx, site, bucketId, age);
      await queueDiscards(tx, site, bucketId, keys);
      return keys.length;
    });
    await flushDiscards(ports.db, ports.objectStore, site, bucketId);
  }
}

/** The name the orphan sweep keeps its place under (maintenance_cursors). */
const ORPHAN_SWEEP = 'orphan-bytes';

/**
 * Of one page of listed keys, those no record or queued discard points at, untouched for the grace
 * period: a killed process's stored-but-uncommitted uploads, and the bytes of sites deleted before
 * deletes queued a purge (a uuid that is no site's). One query per site of the page.
 */
async function removeOrphansOfPage(
  ports: MaintenancePorts,
  bySite: Map<string, SiteOfStore>,
  page: readonly ListedKey[],
  olderThan: Date,
  report: MaintenanceReport,
) {
  const candidates = new Map<string, string[]>();
  for (const { key, lastModified } of page) {
    if (lastModified >= olderThan || !SERVICE_KEY.test(key)) continue;
    const siteUuid = key.split('/', 1)[0]!;
    candidates.set(siteUuid, [...(candidates.get(siteUuid) ?? []), key]);
  }
  const orphans: string[] = [];
  for (const [siteUuid, keys] of candidates) {
    const owner = bySite.get(siteUuid);
    const referenced = owner === undefined ? new Set<string>() : await referencedStorageKeys(ports.db, owner, keys);
    orphans.push(...keys.filter((key) => !referenced.has(key)));
  }
  await removeFromStore(ports.objectStore, orphans);
  report.removedOrphans += orphans.length;
}

/**
 * Bytes no record points at, found by listing the object store in key order: at most
 * `orphanKeysPerRun` keys a run, a page of DELETE_BATCH_SIZE in memory at a time, from where the
 * last run stopped (maintenance_cursors); a run that reaches the end makes the next one start over.
 * On a store of millions of objects one run's work and memory stay bounded, and successive runs
 * cover the whole store. The place is kept only after the run's pages are done: a failed run is
 * repeated, not skipped.
 */
async function removeOrphanBytes(
  ports: MaintenancePorts,
  sites: SiteOfStore[],
  olderThan: Date,
  keysPerRun: number,
  report: MaintenanceReport,
) {
  const { listKeys } = ports.objectStore;
  if (listKeys === undefined) return;
  const bySite = new Map(sites.map((site) => [site.uuid, site]));
  const from = await sweepPosition(ports.db, ORPHAN_SWEEP);
  let page: ListedKey[] = [];
  let last: string | undefined;
  let reachedTheEnd = true;
  for await (const listed of listKeys.call(ports.objectStore, '', { startAfter: from })) {
    page.push(listed);
    last = listed.key;
    report.listedKeys += 1;
    if (page.length === DELETE_BATCH_SIZE) {
      await removeOrphansOfPage(ports, bySite, page, olderThan, report);
      page = [];
    }
    if (report.listedKeys >= keysPerRun) {
      reachedTheEnd = false;
      break;
    }
  }
  await removeOrphansOfPage(ports, bySite, page, olderThan, report);
  await keepSweepPosition(ports.db, ORPHAN_SWEEP, reachedTheEnd ? undefined : last);
}

export async function runStorageMaintenance(ports: MaintenancePorts, options: MaintenanceOptions): Promise<MaintenanceReport> {
  const report: MaintenanceReport = {
    purgedSites: 0,
    sweptUploads: 0,
    listedKeys: 0,
    removedOrphans: 0,
    removedTemporaries: 0,
    failures: [],
  };
  const olderThan = new Date(Date.now() - options.graceSeconds * 1000);
  const step = async (name: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      report.failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      ports.log.warn('storage maintenance step failed; the next run retries it', { step: name, ...describeError(error) });
    }
  };
  await step('purges', () => purgeDeletedSites(ports, report));
  const sites = await sitesOfStore(ports.db);
  for (const site of sites) await step(`buckets of site ${site.uuid}`, () => sweepSiteBuckets(ports, site, options, report));
  await step('orphan bytes', () => removeOrphanBytes(ports, sites, olderThan, options.orphanKeysPerRun, report));
  await step('temporary files', async () => {
    report.removedTemporaries += (await ports.objectStore.removeAbandonedTemporaries?.(olderThan)) ?? 0;
  });
  return report;
}
