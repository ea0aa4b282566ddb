// The endpoints that bring bytes in (streamed, never buffered whole by the dev server) and the
// copy and move endpoints that make objects from others: parse, call the service, answer.
import { outcome, type Outcome } from '#shared/http/answers.ts';
import { defineRoute, defineStreamingRoute } from '#shared/http/route.ts';
import { bucketParams } from '../buckets/bucket-schemas.ts';
import { storageEnv } from '../storage-env.ts';
import { OBJECT, OBJECTS, objectsCommon } from './object-routes.ts';
import * as z from 'zod';
import { objectRecord, type ObjectRecord, objectSchema } from './object-representation.ts';
import { objectParams, transferBody } from './object-schemas.ts';
import { copyObject, moveObject } from './transfer-service.ts';
import { batchUpload, legacyUpload, uploadByPath, type UploadOutcome } from './upload-service.ts';

/** 201 when the path was new, 200 when an object there was replaced. */
export function uploadAnswer(origin: string, { bucket, object, created }: UploadOutcome): Outcome<ObjectRecord> {
  return outcome(objectRecord(object, bucket, origin), {
    status: created ? 201 : 200,
    message: created ? 'File uploaded successfully' : 'File replaced successfully',
  });
}

function uploadByPathRoute(method: 'PUT' | 'POST') {
  return defineStreamingRoute({
    ...objectsCommon,
    method,
    path: OBJECT,
    summary: 'Upload or replace the object at a path: raw bytes (Content-Type is the file type) or multipart `file`; X-Metadata-* headers',
    params: objectParams,
    envelope: 'B',
    response: objectSchema,
    message: 'File uploaded successfully',
    handler: async (ctx, { params, body }) => {
      const env = storageEnv(ctx);
      return uploadAnswer(env.origin, await uploadByPath(env, params, body, ctx.request.headers));
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
  response: objectSchema,
  message: 'File uploaded successfully',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    return uploadAnswer(env.origin, await legacyUpload(env, params, body));
  },
});

export const batchUploadRoute = defineStreamingRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECTS}batch-upload/`,
  summary: 'Upload up to 10 files (`files`, with optional `paths` and `metadata`): 201 all, 207 some, 400 none',
  params: bucketParams,
  envelope: 'B',
  response: () =>
    z.strictObject({
      uploaded: z.array(objectSchema()),
      failed: z.array(z.strictObject({ filename: z.string(), error: z.string() })),
    }),
  message: 'Files uploaded',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { uploaded, failed } = await batchUpload(env, params, body);
    // Envelope B's `success` is false with the 400 of a batch where nothing was stored.
    return outcome(
      { uploaded: uploaded.map((upload) => objectRecord(upload.object, upload.bucket, env.origin)), failed },
      {
        status: failed.length === 0 ? 201 : uploaded.length === 0 ? 400 : 207,
        message: `${uploaded.length} file(s) uploaded, ${failed.length} failed`,
      },
    );
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
  response: objectSchema,
  message: 'Object copied successfully',
  status: 201,
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await copyObject(env, params, body);
    return objectRecord(object, bucket, env.origin);
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
  response: objectSchema,
  message: 'Object moved successfully',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object } = await moveObject(env, params, body);
    return objectRecord(object, bucket, env.origin);
  },
});
