// The bucket endpoints of an app (tenant level): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { bucketRecord, bucketSchema } from './bucket-representation.ts';
import { appParams, bucketParams, createBucketBody, listBucketsQuery, patchBucketBody } from './bucket-schemas.ts';
import { changeBucket, createBucket, deleteBucket, existingBucket, listAppBuckets } from './bucket-service.ts';

const common = { host: 'tenant', access: 'user', errorStyle: 'generic' } as const;
const BUCKETS = '/api/apps/{app_slug}/storage/buckets/';
const BUCKET = `${BUCKETS}{bucket_slug}/`;

export const listBucketsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: BUCKETS,
  summary: "List an app's buckets",
  params: appParams,
  query: listBucketsQuery,
  envelope: 'C',
  response: bucketSchema,
  handler: async (ctx, { params, query }) => {
    const page = toPageRequest(query);
    const { rows, total } = await listAppBuckets(ctx.runtime.db, ctx.site, params.app_slug, query, page);
    return paged(rows.map(bucketRecord), total, page);
  },
});

export const createBucketRoute = defineRoute({
  ...common,
  method: 'POST',
  path: BUCKETS,
  summary: 'Create a bucket (the slug comes from the name)',
  params: appParams,
  body: createBucketBody,
  envelope: 'bare',
  response: bucketSchema,
  status: 201,
  handler: async (ctx, { params, body }) =>
    bucketRecord(await createBucket(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body, ctx.runtime.documentLibrary !== undefined)),
});

export const getBucketRoute = defineRoute({
  ...common,
  method: 'GET',
  path: BUCKET,
  summary: 'Bucket detail',
  params: bucketParams,
  envelope: 'bare',
  response: bucketSchema,
  handler: async (ctx, { params }) => bucketRecord(await existingBucket(ctx.runtime.db, ctx.site, params.app_slug, params.bucket_slug)),
});

export const patchBucketRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: BUCKET,
  summary: "Change a bucket's name, category, visibility, size limit or MIME allow-list",
  params: bucketParams,
  body: patchBucketBody,
  envelope: 'bare',
  response: bucketSchema,
  handler: async (ctx, { params, body }) =>
    bucketRecord(await changeBucket(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.bucket_slug, body)),
});

export const deleteBucketRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: BUCKET,
  summary: 'Delete a bucket: its files from storage, then its object records, then the bucket',
  params: bucketParams,
  envelope: 'none',
  // A storage failure answers {success: false, message, status_code: 500}.
  errorStyle: 'success-flag',
  handler: async (ctx, { params }) => {
    const { objectStore, documentLibrary } = ctx.runtime;
    await deleteBucket(ctx.runtime.db, { objectStore, documentLibrary, site: ctx.site }, ctx.user, params.app_slug, params.bucket_slug);
    return noContent();
  },
});
