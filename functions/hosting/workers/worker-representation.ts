// The shapes a frontend worker and its builds take in answers: the spec's list representation and
// DECISIONS' fuller record.
import type { HostingConfig } from '#shared/config.ts';
import type { BuildRow, WorkerRow } from './worker-repository.ts';
import { webUrlOf } from './subdomain-rules.ts';

export function workerListItem(config: Pick<HostingConfig, 'siteUrl'>, worker: WorkerRow) {
  return {
    slug: worker.slug,
    name: worker.name,
    subdomain: worker.subdomain,
    web_url: webUrlOf(config, worker.isInternal, worker.fullDomain),
    active_build_uuid: worker.activeBuildUuid,
    app_name: worker.appName,
  };
}

export function workerRecord(config: Pick<HostingConfig, 'siteUrl'>, worker: WorkerRow) {
  return {
    slug: worker.slug,
    name: worker.name,
    subdomain: worker.subdomain,
    web_url: webUrlOf(config, worker.isInternal, worker.fullDomain),
    full_domain: worker.fullDomain,
    is_internal: worker.isInternal,
    domain: worker.isInternal ? null : worker.domain,
    active_build_uuid: worker.activeBuildUuid,
    app: worker.appId,
    app_name: worker.appName,
    created_at: worker.createdAt.toISOString(),
    updated_at: worker.updatedAt.toISOString(),
  };
}

export function buildRecord(worker: Pick<WorkerRow, 'activeBuildUuid'>, build: BuildRow) {
  return {
    uuid: build.uuid,
    is_active: worker.activeBuildUuid === build.uuid,
    file_count: build.fileCount,
    total_bytes: build.totalBytes,
    created_at: build.createdAt.toISOString(),
  };
}
