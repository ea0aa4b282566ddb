// The object endpoints that read, change and delete existing objects: parse, call the service,
// answer; the route's Envelope B wraps it. Anonymous callers reach them too (`optional`): public objects are theirs to
// read; everything else is refused by the service.
import { outcome, paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { bucketParams } from '../buckets/bucket-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import { downloadReply } from './download-replies.ts';
import { serveObject } from './downloads.ts';
import * as z from 'zod';
import { objectRecord, objectSchema, objectSearchItemSchema, searchItem } from './object-representation.ts';
import { batchDeleteBody, downloadQuery, listObjectsQuery, objectParams, patchObjectBody, searchBody } from './object-schemas.ts';
import { changeObject, deleteObject, deleteObjects, listObjects, searchObjects } from './object-service.ts';

export const objectsCommon = { host: 'tenant', access: 'optional', errorStyle: 'success-flag' } as const;
export const OBJECTS = '/api/apps/{app_slug}/storage/buckets/{bucket_slug}/objects/';
/** `{key}` may hold slashes; a trailing slash is optional (the key is normalised without it). */
export const OBJECT = `${OBJECTS}{key+}`;

export const listObjectsRoute = defineRoute({
  ...objectsCommon,
  method: 'GET',
  path: OBJECTS,
  summary: "List a bucket's objects with filters (Envelope B page)",
  params: bucketParams,
  query: listObjectsQuery,
  envelope: 'B',
  response: objectSchema,
  message: 'Objects retrieved successfully',
  handler: async (ctx, { params, query }) => {
    const env = storageEnv(ctx);
    const page = toPageRequest(query);
    const { bucket, rows, total } = await listObjects(env, params, query, page);
    return paged(
      rows.map((row) => objectRecord(row, bucket, env.origin)),
      total,
      page,
    );
  },
});

export const downloadObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'GET',
  path: OBJECT,
  summary: 'Download an object (Range, If-None-Match), or its record with ?metadata=true',
  params: objectParams,
  query: downloadQuery,
  // The bytes go out as they are; only the record (`?metadata=true`) is wrapped.
  envelope: 'B',
  response: objectSchema,
  message: 'Object metadata retrieved successfully',
  handler: async (ctx, { params, query }) => {
    const env = storageEnv(ctx);
    const headersOnly = ctx.request.method === 'HEAD';
    return downloadReply(await serveObject(env, params, query, ctx.request.headers, headersOnly), env.origin);
  },
});

export const patchObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'PATCH',
  path: OBJECT,
  summary: "Change an object's metadata (merged; null removes a key), visibility or file name",
  params: objectParams,
  body: patchObjectBody,
  envelope: 'B',
  response: objectSchema,
  message: 'Object updated successfully',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await changeObject(env, params, body);
    return objectRecord(object, bucket, env.origin);
  },
});

export const deleteObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'DELETE',
  path: OBJECT,
  summary: 'Delete an object and its bytes',
  params: objectParams,
  envelope: 'B',
  response: objectSchema,
  message: 'Object deleted successfully',
  handler: async (ctx, { params }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await deleteObject(env, params);
    return objectRecord(object, bucket, env.origin);
  },
});

export const batchDeleteRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}batch-delete/`,
  summary: 'Delete several objects by path',
  params: bucketParams,
  body: batchDeleteBody,
  envelope: 'B',
  response: () => z.strictObject({ deleted: z.array(z.string()), not_found: z.array(z.string()) }),
  message: 'Objects deleted',
  handler: async (ctx, { params, body }) => {
    const result = await deleteObjects(storageEnv(ctx), params, body);
    return outcome(result, { message: `${result.deleted.length} object(s) deleted` });
  },
});

export const searchObjectsRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}search/`,
  summary: 'Search objects by prefix and file name (legacy)',
  params: bucketParams,
  body: searchBody,
  envelope: 'B',
  response: () => z.strictObject({ objects: z.array(objectSearchItemSchema()), count: z.number().int(), bucket: z.string() }),
  message: 'Search completed successfully',
  handler: async (ctx, { params, body }) => {
    const { bucket, rows, total } = await searchObjects(storageEnv(ctx), params, body);
    return { objects: rows.map(searchItem), count: total, bucket: bucket.slug };
  },
});
