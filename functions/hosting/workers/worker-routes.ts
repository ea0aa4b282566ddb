// The frontend worker endpoints (tenant level, Envelope B): parse, call the service, answer.
import { envelopeB, pageB } from '#shared/http/envelopes.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { hostingEnv } from '../hosting-env.ts';
import { checkAvailability } from './availability-service.ts';
import { readBuildForm } from './build-upload.ts';
import { workerListItem, workerRecord } from './worker-representation.ts';
import { availabilityQuery, listWorkersQuery, patchWorkerBody, workerParams } from './worker-schemas.ts';
import { createWorker, deleteWorker, getWorker, listSiteWorkers, patchWorker } from './worker-service.ts';

export const WORKERS = '/api/frontend_workers/';
export const workersCommon = { host: 'tenant', access: 'user', errorStyle: 'success-flag', envelope: 'B' } as const;

export const listWorkersRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: WORKERS,
  summary: "List the site's frontend workers (search by name, ordering, app id)",
  query: listWorkersQuery,
  handler: async (ctx, { query }) => {
    const env = await hostingEnv(ctx);
    const page = await listSiteWorkers(env, query);
    return pageB(page.rows.map((worker) => workerListItem(env.hosting, worker)), page.total, toPageRequest(query), 'Frontend workers retrieved successfully');
  },
});

export const createWorkerRoute = defineStreamingRoute({
  ...workersCommon,
  method: 'POST',
  path: WORKERS,
  summary: 'Create a worker from a build archive (multipart: name, subdomain_input, file, is_internal, domain); the build goes live',
  handler: async (ctx, { body }) => {
    const env = await hostingEnv(ctx);
    const worker = await createWorker(env, await readBuildForm(env, body));
    return reply(201, envelopeB(workerRecord(env.hosting, worker), 'Frontend worker created successfully', 201));
  },
});

export const availabilityRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}check-subdomain-availability/`,
  summary: 'Whether a subdomain is free for this site, with up to five suggestions when it is not',
  query: availabilityQuery,
  handler: async (ctx, { query }) => {
    const data = await checkAvailability(await hostingEnv(ctx), query);
    return envelopeB(data, data.message);
  },
});

export const getWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}{slug}/`,
  summary: 'One frontend worker',
  params: workerParams,
  handler: async (ctx, { params }) => {
    const env = await hostingEnv(ctx);
    return envelopeB(workerRecord(env.hosting, await getWorker(env, params.slug)), 'Frontend worker retrieved successfully');
  },
});

export const patchWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'PATCH',
  path: `${WORKERS}{slug}/`,
  summary: 'Rename a worker or move it to another subdomain or domain (the slug never changes)',
  params: workerParams,
  body: patchWorkerBody,
  handler: async (ctx, { params, body }) => {
    const env = await hostingEnv(ctx);
    return envelopeB(workerRecord(env.hosting, await patchWorker(env, params.slug, body)), 'Frontend worker updated successfully');
  },
});

export const deleteWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'DELETE',
  path: `${WORKERS}{slug}/`,
  summary: 'Delete a worker with its builds and files; its subdomain is free again',
  params: workerParams,
  handler: async (ctx, { params }) => {
    await deleteWorker(await hostingEnv(ctx), params.slug);
    return envelopeB({}, 'Frontend worker deleted successfully');
  },
});
