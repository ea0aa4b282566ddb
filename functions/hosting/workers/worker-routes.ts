// The frontend worker endpoints (tenant level, Envelope B): parse, call the service, answer.
import * as z from 'zod';
import { outcome, paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { hostingEnv } from '../hosting-env.ts';
import { checkAvailability } from './availability-service.ts';
import { readBuildForm } from './build-upload.ts';
import { availabilitySchema, workerListItem, workerListItemSchema, workerRecord, workerSchema } from './worker-representation.ts';
import { AVAILABILITY_SEGMENT, availabilityQuery, listWorkersQuery, patchWorkerBody, workerParams } from './worker-schemas.ts';
import { createWorker, deleteWorker, getWorker, listSiteWorkers, patchWorker } from './worker-service.ts';

export const WORKERS = '/api/frontend_workers/';
export const workersCommon = { host: 'tenant', access: 'user', errorStyle: 'success-flag', envelope: 'B' } as const;

export const listWorkersRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: WORKERS,
  summary: "List the site's frontend workers (search by name, ordering, app id)",
  query: listWorkersQuery,
  message: 'Frontend workers retrieved successfully',
  response: workerListItemSchema,
  handler: async (ctx, { query }) => {
    const env = await hostingEnv(ctx);
    const page = await listSiteWorkers(env, query);
    return paged(
      page.rows.map((worker) => workerListItem(env.hosting, worker)),
      page.total,
      toPageRequest(query),
    );
  },
});

export const createWorkerRoute = defineStreamingRoute({
  ...workersCommon,
  method: 'POST',
  path: WORKERS,
  summary: 'Create a worker from a build archive (multipart: name, subdomain_input, file, is_internal, domain); the build goes live',
  status: 201,
  message: 'Frontend worker created successfully',
  response: workerSchema,
  handler: async (ctx, { body }) => {
    const env = await hostingEnv(ctx);
    return workerRecord(env.hosting, await createWorker(env, () => readBuildForm(env, body)));
  },
});

export const availabilityRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}${AVAILABILITY_SEGMENT}/`,
  summary: 'Whether a subdomain is free for this site, with up to five suggestions when it is not',
  query: availabilityQuery,
  message: 'This subdomain is available.',
  response: availabilitySchema,
  handler: async (ctx, { query }) => {
    const data = await checkAvailability(await hostingEnv(ctx), query);
    return outcome(data, { message: data.message });
  },
});

export const getWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'GET',
  path: `${WORKERS}{slug}/`,
  summary: 'One frontend worker',
  params: workerParams,
  message: 'Frontend worker retrieved successfully',
  response: workerSchema,
  handler: async (ctx, { params }) => {
    const env = await hostingEnv(ctx);
    return workerRecord(env.hosting, await getWorker(env, params.slug));
  },
});

export const patchWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'PATCH',
  path: `${WORKERS}{slug}/`,
  summary: 'Rename a worker or move it to another subdomain or domain (the slug never changes)',
  params: workerParams,
  body: patchWorkerBody,
  message: 'Frontend worker updated successfully',
  response: workerSchema,
  handler: async (ctx, { params, body }) => {
    const env = await hostingEnv(ctx);
    return workerRecord(env.hosting, await patchWorker(env, params.slug, body));
  },
});

export const deleteWorkerRoute = defineRoute({
  ...workersCommon,
  method: 'DELETE',
  path: `${WORKERS}{slug}/`,
  summary: 'Delete a worker with its builds and files; its subdomain is free again',
  params: workerParams,
  message: 'Frontend worker deleted successfully',
  response: () => z.strictObject({}),
  handler: async (ctx, { params }) => {
    await deleteWorker(await hostingEnv(ctx), params.slug);
    return {};
  },
});
