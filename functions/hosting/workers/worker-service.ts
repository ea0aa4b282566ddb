// The rules of frontend workers: create one from an uploaded build, read and list them, change
// their name or subdomain, delete them with every build and file. A worker's full domain is
// claimed platform-wide in the same transaction that writes the worker.
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import { buildFileKey, buildPrefixOf } from '#shared/hosting/build-keys.ts';
import type { HostMapping } from '#shared/hosting/host-mappings.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { parseOrThrow } from '#shared/http/validation.ts';
import { uniqueSlug, slugFrom } from '#shared/text/slugs.ts';
import { DELETE_BATCH_SIZE } from '#shared/storage/object-store.ts';
import type { HostingEnv } from '../hosting-env.ts';
import { discardBuild, type BuildForm } from './build-upload.ts';
import { assertManagesWorkers } from './worker-access.ts';
import { assertDomainFree, takenError, workerTarget } from './worker-domains.ts';
import {
  claimDomain,
  deleteWorkerRow,
  findAppName,
  findWorker,
  insertBuild,
  insertWorker,
  listBuilds,
  listWorkers,
  lockWorker,
  pointDomainAt,
  releaseDomain,
  setActiveBuild,
  updateClaim,
  updateWorker,
  workerSlugsLike,
  type WorkerRow,
} from './worker-repository.ts';
import { RESERVED_WORKER_SLUGS, createWorkerFields, type ListWorkersQuery, type PatchWorkerBody } from './worker-schemas.ts';

const SLUG_MAX = 100;

export function workerNotFound(): NotFoundError {
  return new NotFoundError('Frontend worker not found.');
}

/** A unique violation on the registry's key is the race of two claims for one domain. */
function asTaken(error: unknown, field: string): unknown {
  return error instanceof UniqueViolationError && error.table === 'hosted_domains' ? takenError(field) : error;
}

export async function getWorker(env: HostingEnv, slug: string): Promise<WorkerRow> {
  const worker = await findWorker(env.db, env.site, slug);
  if (worker === undefined) throw workerNotFound();
  return worker;
}

export function listSiteWorkers(env: HostingEnv, query: ListWorkersQuery) {
  return listWorkers(env.db, env.site, { search: query.search, appId: query.app, ordering: query.ordering, page: toPageRequest(query) });
}

/**
 * Creates the worker from the form `readForm` unpacks; the build is its active one. The caller's
 * permission is checked before the archive is read, so a refused caller stores nothing.
 */
export async function createWorker(env: HostingEnv, readForm: () => Promise<BuildForm>): Promise<WorkerRow> {
  await assertManagesWorkers(env);
  const form = await readForm();
  const { build } = form;
  let worker: WorkerRow;
  try {
    const input = parseOrThrow(createWorkerFields(), Object.fromEntries(form.fields));
    const target = workerTarget(env, input.subdomain_input, input.is_internal, input.domain, 'subdomain_input');
    if (input.app !== undefined && (await findAppName(env.db, env.site, input.app)) === undefined) {
      throw ValidationError.forFields({ app: ['No app with this id on the site.'] });
    }
    worker = await env.db.transaction(async (tx) => {
      await assertDomainFree(tx, env, target.fullDomain, 'subdomain_input');
      let slug: string;
      if (input.slug !== undefined) {
        if ((await findWorker(tx, env.site, input.slug)) !== undefined)
          throw ValidationError.forFields({ slug: ['A frontend worker with this slug already exists.'] });
        slug = input.slug;
      } else {
        slug = await uniqueSlug(await slugFrom(target.subdomain, SLUG_MAX), (base) => workerSlugsLike(tx, env.site, base), {
          maxLength: SLUG_MAX,
          reserved: RESERVED_WORKER_SLUGS,
        });
      }
      const id = await insertWorker(tx, env.site, {
        slug,
        name: input.name,
        subdomain: target.subdomain,
        isInternal: target.isInternal,
        domain: target.isInternal ? null : target.domain,
        fullDomain: target.fullDomain,
        appId: input.app ?? null,
        createdBy: env.user.id,
      });
      await claimDomain(tx, { fullDomain: target.fullDomain, siteId: env.site.siteId, workerSlug: slug, workerName: input.name });
      await insertBuild(tx, env.site, {
        uuid: build.uuid,
        workerId: id,
        files: build.files,
        totalBytes: build.totalBytes,
        createdBy: env.user.id,
      });
      await setActiveBuild(tx, env.site, id, build.uuid);
      await pointDomainAt(tx, env.site.siteId, slug, build.prefix);
      return (await findWorker(tx, env.site, slug))!;
    });
  } catch (error) {
    await discardBuild(env, build);
    throw asTaken(error, 'subdomain_input');
  }
  await env.hostMappings.apply([{ host: worker.fullDomain, buildPrefix: build.prefix }]);
  return worker;
}

/**
 * After a PATCH: the old host (if it moved) serves nothing, the current one the active build. The
 * current host is written even when it did not move, so a PATCH sent again repairs an edge write
 * that failed after the change was committed.
 */
function patchedHosts(env: HostingEnv, previousDomain: string, worker: WorkerRow): HostMapping[] {
  const buildPrefix = worker.activeBuildUuid === null ? undefined : buildPrefixOf(env.site.uuid, worker.activeBuildUuid);
  const current: HostMapping = { host: worker.fullDomain, buildPrefix };
  return previousDomain === worker.fullDomain ? [current] : [{ host: previousDomain, buildPrefix: undefined }, current];
}

/** Renames the worker or moves it to another subdomain or base domain; its builds stay where they are. */
export async function patchWorker(env: HostingEnv, slug: string, body: PatchWorkerBody): Promise<WorkerRow> {
  await assertManagesWorkers(env);
  let previousDomain = '';
  let worker: WorkerRow;
  try {
    worker = await env.db.transaction(async (tx) => {
      const current = await lockWorker(tx, env.site, slug);
      if (current === undefined) throw workerNotFound();
      previousDomain = current.fullDomain;
      const isInternal = body.is_internal ?? current.isInternal;
      const domain = body.domain === undefined ? (current.domain ?? undefined) : (body.domain ?? undefined);
      const target = workerTarget(env, body.subdomain_input ?? current.subdomain, isInternal, domain, 'subdomain_input');
      if (target.fullDomain !== current.fullDomain) await assertDomainFree(tx, env, target.fullDomain, 'subdomain_input', slug);
      const name = body.name ?? current.name;
      await updateWorker(tx, env.site, current.id, {
        name,
        subdomain: target.subdomain,
        isInternal: target.isInternal,
        domain: target.isInternal ? null : target.domain,
        fullDomain: target.fullDomain,
      });
      await updateClaim(tx, env.site.siteId, slug, { fullDomain: target.fullDomain, workerName: name });
      return (await findWorker(tx, env.site, slug))!;
    });
  } catch (error) {
    throw asTaken(error, 'subdomain_input');
  }
  await env.hostMappings.apply(patchedHosts(env, previousDomain, worker));
  return worker;
}

/** Removes the worker, its builds and their files, and frees its domain. */
export async function deleteWorker(env: HostingEnv, slug: string): Promise<void> {
  await assertManagesWorkers(env);
  const { worker, keys } = await env.db.transaction(async (tx) => {
    const current = await lockWorker(tx, env.site, slug);
    if (current === undefined) throw workerNotFound();
    const builds = await listBuilds(tx, env.site, current.id);
    await deleteWorkerRow(tx, env.site, current.id);
    await releaseDomain(tx, env.site.siteId, slug);
    const buildKeys = builds.flatMap((build) =>
      build.files.map((file) => buildFileKey(buildPrefixOf(env.site.uuid, build.uuid), file.split('/'))),
    );
    return { worker: current, keys: buildKeys };
  });
  try {
    await env.hostMappings.apply([{ host: worker.fullDomain, buildPrefix: undefined }]);
  } finally {
    // The worker is gone either way: its files must not stay behind when the edge write failed.
    for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
      await env.store.deleteMany(keys.slice(start, start + DELETE_BATCH_SIZE));
    }
  }
}
