// The presigned upload endpoints (presigned-uploads.ts): ask for a URL, PUT the bytes there, then
// complete. Both sit under the object's path, beside the upload by path they stand in for.
import { defineRoute } from '#shared/http/route.ts';
import { storageEnv } from '../storage-env.ts';
import { OBJECT, objectsCommon } from './object-routes.ts';
import { objectUrl } from './object-representation.ts';
import { completeUploadBody, objectParams, uploadUrlBody } from './object-schemas.ts';
import { completeUpload, requestUploadUrl } from './presigned-uploads.ts';
import { uploadAnswer } from './upload-routes.ts';

export const uploadUrlRoute = defineRoute({
  ...objectsCommon,
  method: 'POST',
  path: `${OBJECT}/upload-url`,
  summary:
    'A presigned PUT for the bytes of the object at a path (`size`, `content_type`, `filename`, `metadata`), for files too large for the API',
  params: objectParams,
  body: uploadUrlBody,
  envelope: 'B',
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
  message: 'File uploaded successfully',
  handler: async (ctx, { params, body }) => {
    const env = storageEnv(ctx);
    return uploadAnswer(env.origin, await completeUpload(env, params, body));
  },
});
