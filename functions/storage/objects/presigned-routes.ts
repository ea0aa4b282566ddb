// The presigned upload endpoints (presigned-uploads.ts): ask for a URL, PUT the bytes there, then
// complete. Both sit under the object's path, beside the upload by path they stand in for.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { defineRoute } from '#shared/http/route.ts';
import { storageEnv } from '../storage-env.ts';
import { OBJECT, objectsCommon } from './object-routes.ts';
import { objectSchema, objectUrl } from './object-representation.ts';
import { completeUploadBody, objectParams, uploadUrlBody } from './object-schemas.ts';
import { completeUpload, requestUploadUrl } from './presigned-uploads.ts';
import { uploadAnswer } from './upload-routes.ts';

/** Where and how to PUT the bytes, and the URL that completes the upload afterwards. */
const uploadUrlSchema = lazySchema(() =>
  z
    .strictObject({
      object_uuid: z.string(),
      file_path: z.string(),
      url: z.string(),
      method: z.literal('PUT'),
      headers: z.record(z.string(), z.string()).meta({ description: 'Send these with the PUT' }),
      expires_at: z.string(),
      complete_url: z.string(),
    })
    .meta({ id: 'PresignedUploadUrl' }),
);

export const uploadUrlRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECT}/upload-url`,
  summary:
    'A presigned PUT for the bytes of the object at a path (`size`, `content_type`, `filename`, `metadata`), for files too large for the API',
  params: objectParams,
  body: uploadUrlBody,
  envelope: 'B',
  response: uploadUrlSchema,
  message: 'Upload URL created: PUT the file there, then POST complete_url with the object_uuid',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    const { bucket, object, upload } = await requestUploadUrl(env, params, body);
    return {
      object_uuid: object.uuid,
      file_path: object.file_path,
      url: upload.url,
      method: upload.method,
      headers: upload.headers,
      expires_at: upload.expiresAt.toISOString(),
      complete_url: `${objectUrl(env.origin, bucket, object.file_path)}/complete-upload`,
    };
  },
});

export const completeUploadRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECT}/complete-upload`,
  summary: 'Complete a presigned upload (`object_uuid`): the bytes are checked and become the object at the path',
  params: objectParams,
  body: completeUploadBody,
  envelope: 'B',
  response: objectSchema,
  message: 'File uploaded successfully',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    return uploadAnswer(env.origin, await completeUpload(env, params, body));
  },
});
