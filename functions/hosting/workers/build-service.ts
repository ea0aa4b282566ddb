// A worker's builds: list them, upload a new one (it becomes the active build), and activate an
// earlier or later one (roll back or forward). Activation moves the host → build mapping.
import { NotFoundError } from '#shared/errors.ts';
import { buildPrefixOf } from '#shared/hosting/build-keys.ts';
import type { HostingEnv } from '../hosting-env.ts';
import { discardBuild, type BuildForm } from './build-upload.ts';
import {
  findBuild,
  insertBuild,
  listBuilds,
  lockWorker,
  pointDomainAt,
  setActiveBuild,
  type BuildRow,
  type WorkerRow,
} from './worker-repository.ts';
import { assertManagesWorkers } from './worker-access.ts';
import { getWorker, workerNotFound } from './worker-service.ts';

export interface WorkerBuild {
  worker: WorkerRow;
  build: BuildRow;
}

export async function listWorkerBuilds(env: HostingEnv, slug: string): Promise<{ worker: WorkerRow; builds: BuildRow[] }> {
  const worker = await getWorker(env, slug);
  return { worker, builds: await listBuilds(env.db, env.site, worker.id) };
}

/** Records the build `readForm` unpacks and makes it the active one (permission checked before reading). */
export async function addBuild(env: HostingEnv, slug: string, readForm: () => Promise<BuildForm>): Promise<WorkerBuild> {
  await assertManagesWorkers(env);
  const { build } = await readForm();
  let outcome: WorkerBuild;
  try {
    outcome = await env.db.transaction(async (tx) => {
      const worker = await lockWorker(tx, env.site, slug);
      if (worker === undefined) throw workerNotFound();
      const row = await insertBuild(tx, env.site, {
        uuid: build.uuid,
        workerId: worker.id,
        files: build.files,
        totalBytes: build.totalBytes,
        createdBy: env.user.id,
      });
      await setActiveBuild(tx, env.site, worker.id, build.uuid);
      await pointDomainAt(tx, env.site.siteId, slug, build.prefix);
      return { worker: { ...worker, activeBuildUuid: build.uuid }, build: row };
    });
  } catch (error) {
    await discardBuild(env, build);
    throw error;
  }
  await env.hostMappings.apply([{ host: outcome.worker.fullDomain, buildPrefix: build.prefix }]);
  return outcome;
}

export async function activateBuild(env: HostingEnv, slug: string, buildUuid: string): Promise<WorkerBuild> {
  await assertManagesWorkers(env);
  const outcome = await env.db.transaction(async (tx) => {
    const worker = await lockWorker(tx, env.site, slug);
    if (worker === undefined) throw workerNotFound();
    const build = await findBuild(tx, env.site, worker.id, buildUuid);
    if (build === undefined) throw new NotFoundError('Build not found.');
    await setActiveBuild(tx, env.site, worker.id, build.uuid);
    await pointDomainAt(tx, env.site.siteId, slug, buildPrefixOf(env.site.uuid, build.uuid));
    return { worker: { ...worker, activeBuildUuid: build.uuid }, build };
  });
  await env.hostMappings.apply([{ host: outcome.worker.fullDomain, buildPrefix: buildPrefixOf(env.site.uuid, outcome.build.uuid) }]);
  return outcome;
}
