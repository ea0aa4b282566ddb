// A worker's build endpoints (DECISIONS): list, upload a new build (it goes live), activate one.
import { envelopeB } from '#shared/http/envelopes.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { hostingEnv } from '../hosting-env.ts';
import { activateBuild, addBuild, listWorkerBuilds } from './build-service.ts';
import { readBuildForm } from './build-upload.ts';
import { buildRecord } from './worker-representation.ts';
import { buildParams, workerParams } from './worker-schemas.ts';
import { WORKERS, workersCommon } from './worker-routes.ts';

export const listBuildsRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}{slug}/builds/`,
  summary: "A worker's builds, newest first, the active one marked",
  params: workerParams,
  handler: async (ctx, { params }) => {
    const { worker, builds } = await listWorkerBuilds(await hostingEnv(ctx), params.slug);
    return envelopeB(builds.map((build) => buildRecord(worker, build)), 'Builds retrieved successfully');
  },
});

export const uploadBuildRoute = defineStreamingRoute({
  ...workersCommon,
  method: 'POST',
  path: `${WORKERS}{slug}/builds/`,
  summary: 'Upload a new build (multipart `file`: .zip, .tar, .tar.gz, .tgz); it becomes the active build',
  params: workerParams,
  handler: async (ctx, { params, body }) => {
    const env = await hostingEnv(ctx);
    const { worker, build } = await addBuild(env, params.slug, await readBuildForm(env, body));
    return reply(201, envelopeB(buildRecord(worker, build), 'Build uploaded and activated', 201));
  },
});

export const activateBuildRoute = defineRoute({
  ...workersCommon,
  method: 'POST',
  path: `${WORKERS}{slug}/builds/{uuid}/activate/`,
  summary: 'Make an earlier or later build the active one (roll back or forward)',
  params: buildParams,
  handler: async (ctx, { params }) => {
    const { worker, build } = await activateBuild(await hostingEnv(ctx), params.slug, params.uuid);
    return envelopeB(buildRecord(worker, build), 'Build activated');
  },
});
