// The shapes a frontend worker and its builds take in answers: the spec's list representation and
// DECISIONS' fuller record.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { HostingConfig } from '#shared/config.ts';
import type { BuildRow, WorkerRow } from './worker-repository.ts';
import { webUrlOf } from './subdomain-rules.ts';

/** The wire shape of workerListItem, for the OpenAPI document and the test-time response check. */
export const workerListItemSchema = lazySchema(() =>
  z
    .strictObject({
      slug: z.string(),
      name: z.string(),
      subdomain: z.string(),
      web_url: z.string(),
      active_build_uuid: z.string().nullable(),
      app_name: z.string().nullable(),
    })
    .meta({ id: 'FrontendWorkerListItem' }),
);

/** The wire shape of workerRecord. */
export const workerSchema = lazySchema(() =>
  z
    .strictObject({
      slug: z.string(),
      name: z.string(),
      subdomain: z.string(),
      web_url: z.string(),
      full_domain: z.string(),
      is_internal: z.boolean(),
      domain: z.string().nullable(),
      active_build_uuid: z.string().nullable(),
      app: z.number().int().nullable(),
      app_name: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'FrontendWorker' }),
);

/** The wire shape of buildRecord. */
export const buildSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      is_active: z.boolean(),
      file_count: z.number().int(),
      total_bytes: z.number().int(),
      created_at: z.string(),
    })
    .meta({ id: 'FrontendBuild' }),
);

/** What check-subdomain-availability answers (availability-service.ts): suggestions only when taken. */
export const availabilitySchema = lazySchema(() =>
  z
    .strictObject({
      subdomain: z.string(),
      full_domain: z.string(),
      domain: z.string(),
      is_internal: z.boolean(),
      available: z.boolean(),
      message: z.string(),
      conflicts_with: z.strictObject({ worker_slug: z.string(), worker_name: z.string() }).optional(),
      suggestions: z
        .array(
          z.strictObject({
            subdomain: z.string(),
            full_domain: z.string(),
            reason: z.enum(['context-aware', 'semantic', 'smart-numeric', 'fallback']),
          }),
        )
        .optional(),
    })
    .meta({ id: 'SubdomainAvailability' }),
);

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
