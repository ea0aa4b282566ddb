// The rules of buckets: any caller with access to the site reads an app's buckets; its content
// managers (see shared/tenancy/site-managers.ts) create, change and delete them. Slugs come from
// names and never change. Deleting a bucket removes its files from storage before the records that
// point at them, so a storage failure leaves everything a retry needs and orphans nothing.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { DELETE_BATCH_SIZE } from '#shared/storage/object-store.ts';
import { DocumentLibraryNotConfiguredError } from '#shared/storage/document-library/document-library-errors.ts';
import { assertManagesSiteContent } from '#shared/tenancy/site-managers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import { deleteObjectBatch, objectKeyBatch } from '../objects/object-repository.ts';
import type { ByteStores } from '../storage-env.ts';
import { flushDiscards, removeFromStore, storeFor } from '../stored-bytes.ts';
import {
  deleteEmptyBucket,
  findActiveApp,
  findBucket,
  findBucketById,
  insertBucket,
  listBuckets,
  slugsLike,
  updateBucket,
  type AppRef,
  type BucketRow,
} from './bucket-repository.ts';
import type { CreateBucketBody, ListBucketsQuery, PatchBucketBody } from './bucket-schemas.ts';

const MANAGE_MESSAGE = 'Managing buckets needs manage_site or admin_site on this site.';
const SLUG_LENGTH = 100;

export async function existingApp(db: Queryable, site: Tenant, appSlug: string): Promise<AppRef> {
  const app = await findActiveApp(db, site, appSlug);
  if (app === undefined) throw new NotFoundError('App not found.');
  return app;
}

/** The bucket of the URL: its app must exist too. */
export async function existingBucket(db: Queryable, site: Tenant, appSlug: string, bucketSlug: string): Promise<BucketRow> {
  const app = await existingApp(db, site, appSlug);
  const bucket = await findBucket(db, site, app.id, bucketSlug);
  if (bucket === undefined) throw new NotFoundError('Bucket not found.');
  return bucket;
}

export async function listAppBuckets(db: Queryable, site: Tenant, appSlug: string, query: ListBucketsQuery, page: PageRequest) {
  const app = await existingApp(db, site, appSlug);
  return listBuckets(
    db,
    site,
    app.id,
    { search: query.search, visibility: query.visibility, appCategory: query.app_category, ordering: query.ordering ?? [] },
    page,
  );
}

/** `documentLibraryAvailable`: whether this platform has a document library configured. */
export async function createBucket(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  body: CreateBucketBody,
  documentLibraryAvailable: boolean,
): Promise<BucketRow> {
  await assertManagesSiteContent(db, site, caller, MANAGE_MESSAGE);
  const app = await existingApp(db, site, appSlug);
  if (body.storage_provider === 'document_library' && !documentLibraryAvailable) throw new DocumentLibraryNotConfiguredError();
  const base = await slugFrom(body.name, SLUG_LENGTH);
  if (base === '') throw ValidationError.forFields({ name: ['The name must contain at least one letter or digit.'] });
  const values = {
    name: body.name,
    visibility: body.visibility,
    fileSizeLimit: body.file_size_limit,
    allowedMimeTypes: body.allowed_mime_types,
    appCategory: body.app_category,
    storageProvider: body.storage_provider,
    userId: caller.id,
  };
  for (let attempt = 0; ; attempt += 1) {
    const slug = await uniqueSlug(base, (b) => slugsLike(db, site, app.id, b), { maxLength: SLUG_LENGTH });
    try {
      const id = await insertBucket(db, site, app.id, { ...values, slug });
      return (await findBucketById(db, site, id))!;
    } catch (error) {
      // Two creators raced for the same slug: take the next one.
      if (!(error instanceof UniqueViolationError) || attempt >= 3) throw error;
    }
  }
}

export async function changeBucket(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  bucketSlug: string,
  body: PatchBucketBody,
): Promise<BucketRow> {
  await assertManagesSiteContent(db, site, caller, MANAGE_MESSAGE);
  const bucket = await existingBucket(db, site, appSlug, bucketSlug);
  await updateBucket(db, site, bucket.id, {
    name: body.name ?? bucket.name,
    visibility: body.visibility ?? bucket.visibility,
    fileSizeLimit: body.file_size_limit ?? Number(bucket.file_size_limit),
    allowedMimeTypes: body.allowed_mime_types ?? bucket.allowed_mime_types,
    appCategory: body.app_category ?? bucket.app_category,
    userId: caller.id,
  });
  return (await findBucketById(db, site, bucket.id))!;
}

/** Bounds the loop when uploads keep arriving while the bucket is being emptied. */
const MAX_DELETE_ROUNDS = 10_000;

/**
 * Removes every file of the bucket from storage, a batch at a time, each batch's records right
 * after its files; then the bucket. A batch's records are deleted only where they still point at
 * the keys just removed, so an object replaced meanwhile keeps its new bytes for the next round.
 * A storage failure stops with 500 and leaves the records of everything not yet removed.
 */
export async function deleteBucket(
  db: Queryable,
  stores: ByteStores,
  caller: Principal,
  appSlug: string,
  bucketSlug: string,
): Promise<void> {
  const { site } = stores;
  await assertManagesSiteContent(db, site, caller, MANAGE_MESSAGE);
  const bucket = await existingBucket(db, site, appSlug, bucketSlug);
  const store = storeFor(stores, bucket);
  for (let round = 0; round < MAX_DELETE_ROUNDS; round += 1) {
    await flushDiscards(db, store, site, bucket.id);
    const batch = await objectKeyBatch(db, site, bucket.id, DELETE_BATCH_SIZE);
    if (batch.length === 0) {
      if (await deleteEmptyBucket(db, site, bucket.id)) return;
      continue; // an upload landed after the last batch
    }
    await removeFromStore(
      store,
      batch.map((object) => object.storage_key),
    );
    await deleteObjectBatch(db, site, batch);
  }
  throw new ValidationError('The bucket keeps receiving uploads; stop them and delete it again.');
}
