// The endpoints that bring bytes in (streamed, never buffered whole by the dev server) and the
// copy and move endpoints that make objects from others: parse, call the service, answer.
import { envelopeB } from '#shared/http/envelopes.ts';
import { reply, type HttpReply } from '#shared/http/reply.ts';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { bucketParams } from '../buckets/bucket-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import { OBJECT, OBJECTS, objectsCommon } from './object-routes.ts';
import { objectRecord } from './object-representation.ts';
import { objectParams, transferBody } from './object-schemas.ts';
import { copyObject, moveObject } from './transfer-service.ts';
import { batchUpload, legacyUpload, uploadByPath, type UploadOutcome } from './upload-service.ts';

export function uploadReply(origin: string, { bucket, object, created }: UploadOutcome): HttpReply {
  const status = created ? 201 : 200;
  const message = created ? 'File uploaded successfully' : 'File replaced successfully';
  return reply(status, envelopeB(objectRecord(object, bucket, origin), message, status));
}

function uploadByPathRoute(method: 'PUT' | 'POST') {
  return defineStreamingRoute({
    ...objectsCommon,
    method,
    path: OBJECT,
    summary: 'Upload or replace the object at a path: raw bytes (Content-Type is the file type) or multipart `file`; X-Metadata-* headers',
    params: objectParams,
    envelope: 'B',
    handler: async (ctx, { params, body }) => {
      const env = storageEnv(ctx);
      return uploadReply(env.origin, await uploadByPath(env, params, body, ctx.request.headers));
    },
  });
}
export const putObjectRoute = uploadByPathRoute('PUT');
export const postObjectRoute = uploadByPathRoute('POST');

export const legacyUploadRoute = defineStreamingRoute({
  ...objectsCommon,
  method: 'POST',
  path: OBJECTS,
  summary: 'Legacy multipart upload: `file`, optional `path` and `metadata` (JSON); an existing path is replaced',
  params: bucketParams,
  envelope: 'B',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    return uploadReply(env.origin, await legacyUpload(env, params, body));
  },
});

export const batchUploadRoute = defineStreamingRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}batch-upload/`,
  summary: 'Upload up to 10 files (`files`, with optional `paths` and `metadata`): 201 all, 207 some, 400 none',
  params: bucketParams,
  envelope: 'B',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { uploaded, failed } = await batchUpload(env, params, body);
    const status = failed.length === 0 ? 201 : uploaded.length === 0 ? 400 : 207;
    return reply(status, {
      success: uploaded.length > 0,
      message: `${uploaded.length} file(s) uploaded, ${failed.length} failed`,
      status_code: status,
      data: { uploaded: uploaded.map((outcome) => objectRecord(outcome.object, outcome.bucket, env.origin)), failed },
    });
  },
});

export const copyObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}copy/`,
  summary: 'Copy an object (new UUID, same bytes and metadata), within the bucket or to another of the app',
  params: bucketParams,
  body: transferBody,
  envelope: 'B',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await copyObject(env, params, body);
    return reply(201, envelopeB(objectRecord(object, bucket, env.origin), 'Object copied successfully', 201));
  },
});

export const moveObjectRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}move/`,
  summary: 'Move an object (UUID kept, the source path is freed), within the bucket or to another of the app',
  params: bucketParams,
  body: transferBody,
  envelope: 'B',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await moveObject(env, params, body);
    return envelopeB(objectRecord(object, bucket, env.origin), 'Object moved successfully');
  },
});
