// Reading and changing objects that exist: list, search, detail, bytes, metadata changes and
// deletes, each under the object permission table (object-access.ts). Objects a caller may not
// see answer 404 and are absent from lists, as if they did not exist.
import type { ListTotal } from '#shared/db/counted-page.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError } from '#shared/errors.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import type { ByteRange, ObjectDownload } from '#shared/storage/object-store.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { existingBucket } from '../buckets/bucket-service.ts';
import type { BucketParams } from '../buckets/bucket-schemas.ts';
import type { StorageEnv } from '../storage-env.ts';
import { queueDiscards } from '../discard-repository.ts';
import { flushDiscardsQuietly, storeFor } from '../stored-bytes.ts';
import { assertMayList, assertMayWrite, canRead, canWrite } from './object-access.ts';
import { normalizeFilename, normalizeObjectPath } from './object-keys.ts';
import {
  deleteObjectRecords,
  findObject,
  findObjectById,
  lockObject,
  lockVisibleObjects,
  listObjectRecords,
  searchObjectRecords,
  updateObjectFields,
  type ObjectRow,
} from './object-repository.ts';
import type { BatchDeleteBody, ListObjectsQuery, ObjectParams, PatchObjectBody, SearchBody } from './object-schemas.ts';
import { assertMetadataSize } from './object-writes.ts';

export const OBJECT_NOT_FOUND = 'Object not found.';

export interface BucketObjects<Total = number> {
  bucket: BucketRow;
  rows: ObjectRow[];
  /** A search's exact count, or a list's total as `_count` asked it. */
  total: Total;
}

/** The bucket of a list or search, when the caller may list it (object-access.ts). */
async function listableBucket(env: StorageEnv, params: BucketParams): Promise<BucketRow> {
  let bucket: BucketRow;
  try {
    bucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  } catch (error) {
    if (error instanceof NotFoundError) assertMayList(env.caller, undefined);
    throw error;
  }
  assertMayList(env.caller, bucket);
  return bucket;
}

export async function listObjects(
  env: StorageEnv,
  params: BucketParams,
  query: ListObjectsQuery,
  page: PageRequest,
): Promise<BucketObjects<ListTotal>> {
  const bucket = await listableBucket(env, params);
  const viewer = { caller: env.caller, bucketVisibility: bucket.visibility };
  const found = await listObjectRecords(env.db, env.site, bucket.id, viewer, query, page);
  return { bucket, ...found };
}

export async function searchObjects(env: StorageEnv, params: BucketParams, body: SearchBody): Promise<BucketObjects> {
  const bucket = await listableBucket(env, params);
  const viewer = { caller: env.caller, bucketVisibility: bucket.visibility };
  const found = await searchObjectRecords(env.db, env.site, bucket.id, viewer, body);
  return { bucket, ...found };
}

/**
 * The bucket of an object being read. A missing app or bucket answers as a missing object does:
 * reads are open to anonymous callers and outsiders, who must not learn which buckets exist from
 * the difference between "Bucket not found." and a private object's "Object not found.".
 */
export async function bucketOfObjectRead(env: Pick<StorageEnv, 'db' | 'site'>, params: BucketParams): Promise<BucketRow> {
  try {
    return await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError(OBJECT_NOT_FOUND);
    throw error;
  }
}

/** The object at the URL's key, when the caller may see it; else 404. */
export async function readableObject(env: StorageEnv, params: ObjectParams): Promise<{ bucket: BucketRow; object: ObjectRow }> {
  const path = normalizeObjectPath(params.key, 'path');
  const bucket = await bucketOfObjectRead(env, params);
  const object = await findObject(env.db, env.site, bucket.id, path);
  if (object === undefined || !canRead(env.caller, object, bucket)) throw new NotFoundError(OBJECT_NOT_FOUND);
  return { bucket, object };
}

export function openObjectBytes(env: StorageEnv, bucket: BucketRow, object: ObjectRow, range?: ByteRange): Promise<ObjectDownload> {
  return storeFor(env, bucket).get(object.storage_key, range);
}

/**
 * The object at the URL's key, locked, when the caller may change it: 401 for anonymous callers,
 * 403 without access to the site, 404 when the caller may not even see it.
 */
async function lockWritable(env: StorageEnv, tx: Queryable, bucket: BucketRow, path: string): Promise<ObjectRow> {
  const object = await lockObject(tx, env.site, bucket.id, path);
  if (object === undefined || object.upload_status !== 'complete' || !canWrite(env.caller, object, bucket)) {
    throw new NotFoundError(OBJECT_NOT_FOUND);
  }
  return object;
}

/** PATCH (DECISIONS): `metadata` keys merge and `null` removes one; `visibility` and `filename` replace. */
export async function changeObject(
  env: StorageEnv,
  params: ObjectParams,
  body: PatchObjectBody,
): Promise<{ bucket: BucketRow; object: ObjectRow }> {
  const path = normalizeObjectPath(params.key, 'path');
  assertMayWrite(env.caller);
  const userId = env.caller.principal.id;
  const filename = body.filename === undefined ? undefined : normalizeFilename(body.filename, 'filename');
  const bucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  const id = await env.db.transaction(async (tx) => {
    const object = await lockWritable(env, tx, bucket, path);
    const metadata = { ...object.metadata };
    for (const [key, value] of Object.entries(body.metadata ?? {})) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    assertMetadataSize(metadata);
    await updateObjectFields(tx, env.site, object.id, {
      filename: filename ?? object.filename,
      metadata,
      visibility: body.visibility === undefined ? object.visibility : body.visibility,
      userId,
    });
    return object.id;
  });
  return { bucket, object: await findObjectById(env.db, env.site, id) };
}

export async function deleteObject(env: StorageEnv, params: ObjectParams): Promise<{ bucket: BucketRow; object: ObjectRow }> {
  const path = normalizeObjectPath(params.key, 'path');
  assertMayWrite(env.caller);
  const bucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  const object = await env.db.transaction(async (tx) => {
    const found = await lockWritable(env, tx, bucket, path);
    await deleteObjectRecords(tx, env.site, [found.id]);
    await queueDiscards(tx, env.site, bucket.id, [found.storage_key]);
    return found;
  });
  await flushDiscardsQuietly(env.db, storeFor(env, bucket), env.site, bucket.id, env.log);
  return { bucket, object };
}

/** Batch delete (DECISIONS): paths the caller cannot see (or that do not exist) are `not_found`. */
export async function deleteObjects(
  env: StorageEnv,
  params: BucketParams,
  body: BatchDeleteBody,
): Promise<{ deleted: string[]; not_found: string[] }> {
  const paths = [...new Set(body.paths.map((path, index) => normalizeObjectPath(path, `paths.${index}`)))];
  assertMayWrite(env.caller);
  const bucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  const store = storeFor(env, bucket);
  const deleted = await env.db.transaction(async (tx) => {
    const found = await lockVisibleObjects(tx, env.site, bucket.id, paths, { caller: env.caller, bucketVisibility: bucket.visibility });
    await deleteObjectRecords(
      tx,
      env.site,
      found.map((object) => object.id),
    );
    await queueDiscards(
      tx,
      env.site,
      bucket.id,
      found.map((object) => object.storage_key),
    );
    return new Set(found.map((object) => object.file_path));
  });
  await flushDiscardsQuietly(env.db, store, env.site, bucket.id, env.log);
  return { deleted: paths.filter((path) => deleted.has(path)), not_found: paths.filter((path) => !deleted.has(path)) };
}
