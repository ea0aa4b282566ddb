// Route table of the storage group: an app's buckets and their objects, on tenant hosts.
import type { AnyRoute } from '#shared/http/route.ts';
import { createBucketRoute, deleteBucketRoute, getBucketRoute, listBucketsRoute, patchBucketRoute } from './buckets/bucket-routes.ts';
import {
  batchDeleteRoute,
  deleteObjectRoute,
  downloadObjectRoute,
  listObjectsRoute,
  patchObjectRoute,
  searchObjectsRoute,
} from './objects/object-routes.ts';
import {
  batchUploadRoute,
  copyObjectRoute,
  legacyUploadRoute,
  moveObjectRoute,
  postObjectRoute,
  putObjectRoute,
} from './objects/upload-routes.ts';
import { documentLoaderRoute, editDocumentRoute, redeemTicketRoute, viewDocumentRoute } from './documents/document-routes.ts';
import { completeUploadRoute, uploadUrlRoute } from './objects/presigned-routes.ts';

export const storageRoutes: readonly AnyRoute[] = [
  listBucketsRoute,
  createBucketRoute,
  getBucketRoute,
  patchBucketRoute,
  deleteBucketRoute,
  listObjectsRoute,
  legacyUploadRoute,
  batchUploadRoute,
  batchDeleteRoute,
  searchObjectsRoute,
  copyObjectRoute,
  moveObjectRoute,
  downloadObjectRoute,
  patchObjectRoute,
  deleteObjectRoute,
  putObjectRoute,
  postObjectRoute,
  viewDocumentRoute,
  editDocumentRoute,
  documentLoaderRoute,
  redeemTicketRoute,
  uploadUrlRoute,
  completeUploadRoute,
];
