// Lambda entry of the storage maintenance sweep, invoked by an EventBridge schedule
// (infra/aws/storage-maintenance.ts); the dev server runs the same sweep on a timer. A run that
// leaves work (a store failure) reports it and throws, so the invocation counts as failed in the
// metrics; whatever it did finish stays done and the next run takes the rest.
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { hostMappingsFor } from '#shared/hosting/host-mappings.ts';
import { systemLog } from '#shared/logger.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';
import { runStorageMaintenance, type MaintenanceReport } from './storage-maintenance.ts';

export async function handler(): Promise<MaintenanceReport> {
  const runtime = await getRuntime();
  const report = await runStorageMaintenance(
    {
      db: runtime.db,
      objectStore: runtime.objectStore,
      buildStore: await buildStoreFor(runtime.config.hosting),
      hostMappings: await hostMappingsFor(runtime.config.hosting),
      log: systemLog,
    },
    {
      graceSeconds: runtime.config.maintenance.graceSeconds,
      presignedUrlTtlSeconds: runtime.config.transfers.presignedUrlTtlSeconds,
      orphanKeysPerRun: runtime.config.maintenance.orphanKeysPerRun,
    },
  );
  systemLog.info('storage maintenance ran', { ...report });
  if (report.failures.length > 0) throw new Error(`storage maintenance left work for the next run: ${report.failures.join('; ')}`);
  return report;
}
