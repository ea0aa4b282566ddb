// Route table of the storage group: an app's buckets and their objects, on tenant hosts.
import type { AnyRoute } from '#shared/http/route.ts';
import { createBucketRoute, deleteBucketRoute, getBucketRoute, listBucketsRoute, patchBucketRoute } from './buckets/bucket-routes.ts';
import { documentLoaderRoute, editDocumentRoute, redeemTicketRoute, viewDocumentRoute } from './documents/document-routes.ts';

export const storageRoutes: readonly AnyRoute[] = [
  listBucketsRoute,
  createBucketRoute,
  getBucketRoute,
  patchBucketRoute,
  deleteBucketRoute,
  viewDocumentRoute,
  editDocumentRoute,
  documentLoaderRoute,
  redeemTicketRoute,
];
