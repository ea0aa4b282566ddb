// The dev server's side of the storage maintenance sweep (functions/storage/maintenance): once before
// it listens, then on a timer (MAINTENANCE_INTERVAL_SECONDS), as the EventBridge rule does deployed.
// On PGlite nothing else can be writing to this DATA_DIR while the server starts (PGlite is one
// process), so that first run takes no grace period: whatever a killed server left half-done goes.
import { runStorageMaintenance, type MaintenanceReport } from '#functions/storage/maintenance/storage-maintenance.ts';
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { hostMappingsFor } from '#shared/hosting/host-mappings.ts';
import { systemLog } from '#shared/logger.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';

export interface MaintenanceTimer {
  stop(): Promise<void>;
}

async function runOnce(runtime: Runtime, graceSeconds: number): Promise<MaintenanceReport> {
  const report = await runStorageMaintenance(
    {
      db: runtime.db,
      objectStore: runtime.objectStore,
      buildStore: await buildStoreFor(runtime.config.hosting),
      hostMappings: await hostMappingsFor(runtime.config.hosting),
      log: systemLog,
    },
    {
      graceSeconds,
      presignedUrlTtlSeconds: runtime.config.transfers.presignedUrlTtlSeconds,
      orphanKeysPerRun: runtime.config.maintenance.orphanKeysPerRun,
    },
  );
  if (report.failures.length > 0) systemLog.warn('storage maintenance left work for the next run', { ...report });
  return report;
}

/** Runs the sweep at start-up, then every interval; runs never overlap. */
export async function startMaintenance(runtime: Runtime): Promise<MaintenanceTimer> {
  const { intervalSeconds, graceSeconds } = runtime.config.maintenance;
  await runOnce(runtime, runtime.db.driver === 'pglite' ? 0 : graceSeconds);
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => runOnce(runtime, graceSeconds))
      .catch((error: unknown) => systemLog.error('storage maintenance failed', { error: String(error) }));
  }, intervalSeconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
