// The object endpoints that read, change and delete existing objects: parse, call the service,
// answer in Envelope B. Anonymous callers reach them too (`optional`): public objects are theirs to
// read; everything else is refused by the service.
import { envelopeB, pageB } from '#shared/http/envelopes.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { bucketParams } from '../buckets/bucket-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import { serveObject } from './downloads.ts';
import { objectRecord, searchItem } from './object-representation.ts';
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
  handler: async (ctx, { params, query }) => {
    const env = storageEnv(ctx);
    const page = toPageRequest(query);
    const { bucket, rows, total } = await listObjects(env, params, query, page);
    return pageB(rows.map((row) => objectRecord(row, bucket, env.origin)), total, page, 'Objects retrieved successfully');
  },
});

export const downloadObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'GET',
  path: OBJECT,
  summary: 'Download an object (Range, If-None-Match), or its record with ?metadata=true',
  params: objectParams,
  query: downloadQuery,
  envelope: 'none',
  handler: (ctx, { params, query }) => serveObject(storageEnv(ctx), params, query, ctx.request.headers),
});

export const patchObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'PATCH',
  path: OBJECT,
  summary: "Change an object's metadata (merged; null removes a key), visibility or file name",
  params: objectParams,
  body: patchObjectBody,
  envelope: 'B',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await changeObject(env, params, body);
    return envelopeB(objectRecord(object, bucket, env.origin), 'Object updated successfully');
  },
});

export const deleteObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'DELETE',
  path: OBJECT,
  summary: 'Delete an object and its bytes',
  params: objectParams,
  envelope: 'B',
  handler: async (ctx, { params }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await deleteObject(env, params);
    return envelopeB(objectRecord(object, bucket, env.origin), 'Object deleted successfully');
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
  handler: async (ctx, { params, body }) => {
    const result = await deleteObjects(storageEnv(ctx), params, body);
    return envelopeB(result, `${result.deleted.length} object(s) deleted`);
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
  handler: async (ctx, { params, body }) => {
    const { bucket, rows, total } = await searchObjects(storageEnv(ctx), params, body);
    return envelopeB({ objects: rows.map(searchItem), count: total, bucket: bucket.slug }, 'Search completed successfully');
  },
});
