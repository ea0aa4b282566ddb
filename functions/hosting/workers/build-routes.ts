// A worker's build endpoints (DECISIONS): list, upload a new build (it goes live), activate one.
import * as z from 'zod';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { hostingEnv } from '../hosting-env.ts';
import { activateBuild, addBuild, listWorkerBuilds } from './build-service.ts';
import { readBuildForm } from './build-upload.ts';
import { buildRecord, buildSchema } from './worker-representation.ts';
import { buildParams, workerParams } from './worker-schemas.ts';
import { WORKERS, workersCommon } from './worker-routes.ts';

export const listBuildsRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}{slug}/builds/`,
  summary: "A worker's builds, newest first, the active one marked",
  params: workerParams,
  message: 'Builds retrieved successfully',
  response: () => z.array(buildSchema()),
  handler: async (ctx, { params }) => {
    const { worker, builds } = await listWorkerBuilds(await hostingEnv(ctx), params.slug);
    return builds.map((build) => buildRecord(worker, build));
  },
});

export const uploadBuildRoute = defineStreamingRoute({
  ...workersCommon,
  method: 'POST',
  path: `${WORKERS}{slug}/builds/`,
  summary: 'Upload a new build (multipart `file`: .zip, .tar, .tar.gz, .tgz); it becomes the active build',
  params: workerParams,
  status: 201,
  message: 'Build uploaded and activated',
  response: buildSchema,
  handler: async (ctx, { params, body }) => {
    const env = await hostingEnv(ctx);
    const { worker, build } = await addBuild(env, params.slug, () => readBuildForm(env, body));
    return buildRecord(worker, build);
  },
});

export const activateBuildRoute = defineRoute({
  ...workersCommon,
  method: 'POST',
  path: `${WORKERS}{slug}/builds/{uuid}/activate/`,
  summary: 'Make an earlier or later build the active one (roll back or forward)',
  params: buildParams,
  message: 'Build activated',
  response: buildSchema,
  handler: async (ctx, { params }) => {
    const { worker, build } = await activateBuild(await hostingEnv(ctx), params.slug, params.uuid);
    return buildRecord(worker, build);
  },
});
