// Copy and move inside an app's buckets. Both need the source readable (move: changeable), a free
// destination path (409 otherwise) and buckets of the same storage provider (400 otherwise); the
// destination bucket's MIME allow-list and size limit apply as to an upload. A copy is a new object
// (new UUID, same metadata and bytes, copied inside the store); a move keeps the object and its
// UUID, changing only its path, or its bucket too, whose bytes are then copied and the old ones discarded.
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { existingBucket } from '../buckets/bucket-service.ts';
import type { BucketParams } from '../buckets/bucket-schemas.ts';
import type { StorageEnv } from '../storage-env.ts';
import { queueDiscards } from '../discard-repository.ts';
import { flushDiscardsQuietly, newStorageKey, storeFor } from '../stored-bytes.ts';
import { assertMayWrite, canRead, canWrite } from './object-access.ts';
import { lastSegment, newObjectPath, normalizeObjectPath } from './object-keys.ts';
import { findObject, findObjectById, insertObject, lockObject, relocateObject, type ObjectRow } from './object-repository.ts';
import type { TransferBody } from './object-schemas.ts';
import { abandon, assertMimeAllowed, assertSizeAllowed, type WriteTarget } from './object-writes.ts';
import { OBJECT_NOT_FOUND } from './object-service.ts';

interface Transfer {
  source: { bucket: BucketRow; object: ObjectRow };
  destination: WriteTarget & { path: string };
}

const DESTINATION_TAKEN = 'An object already exists at the destination path.';

async function planTransfer(env: StorageEnv, params: BucketParams, body: TransferBody, mode: 'copy' | 'move'): Promise<Transfer> {
  const sourcePath = normalizeObjectPath(body.source_path, 'source_path');
  const destinationPath = newObjectPath(body.destination_path, 'destination_path');
  assertMayWrite(env.caller);
  const sourceBucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  const destinationBucket =
    body.destination_bucket === undefined || body.destination_bucket === sourceBucket.slug
      ? sourceBucket
      : await existingBucket(env.db, env.site, params.app_slug, body.destination_bucket);
  const object = await findObject(env.db, env.site, sourceBucket.id, sourcePath);
  const allowed = object !== undefined && (mode === 'copy' ? canRead : canWrite)(env.caller, object, sourceBucket);
  if (!allowed) throw new NotFoundError(OBJECT_NOT_FOUND);
  if (sourceBucket.storage_provider !== destinationBucket.storage_provider) {
    throw new ValidationError(
      `Cross-provider ${mode} is not supported: "${sourceBucket.slug}" uses ${sourceBucket.storage_provider} and "${destinationBucket.slug}" uses ${destinationBucket.storage_provider}.`,
    );
  }
  // Within one bucket too: its rules may have changed since the source was stored, and a copy or
  // move puts an object at a new path as an upload would.
  assertMimeAllowed(destinationBucket, object.mimetype);
  assertSizeAllowed(destinationBucket, Number(object.size));
  if ((await findObject(env.db, env.site, destinationBucket.id, destinationPath)) !== undefined) throw new ConflictError(DESTINATION_TAKEN);
  return {
    source: { bucket: sourceBucket, object },
    destination: { env, bucket: destinationBucket, store: storeFor(env, destinationBucket), path: destinationPath },
  };
}

/** POST `.../objects/copy/`: a new object at the destination with the source's bytes and metadata. */
export async function copyObject(
  env: StorageEnv,
  params: BucketParams,
  body: TransferBody,
): Promise<{ bucket: BucketRow; object: ObjectRow }> {
  const { source, destination } = await planTransfer(env, params, body, 'copy');
  const key = newStorageKey(env.site, destination.bucket, lastSegment(destination.path));
  const info = await destination.store.copy(source.object.storage_key, key);
  let id: number | undefined;
  try {
    id = await insertObject(env.db, env.site, {
      bucketId: destination.bucket.id,
      path: destination.path,
      filename: lastSegment(destination.path),
      storageKey: key,
      size: info.size,
      mimetype: source.object.mimetype,
      etag: info.etag,
      metadata: source.object.metadata,
      visibility: source.object.visibility,
      userId: env.caller.userId!,
    });
  } finally {
    if (id === undefined) await abandon(destination, [key]);
  }
  if (id === undefined) throw new ConflictError(DESTINATION_TAKEN);
  return { bucket: destination.bucket, object: await findObjectById(env.db, env.site, id) };
}

/** POST `.../objects/move/` (DECISIONS): the same object (UUID kept) at the destination; the source path is free after. */
export async function moveObject(
  env: StorageEnv,
  params: BucketParams,
  body: TransferBody,
): Promise<{ bucket: BucketRow; object: ObjectRow }> {
  const { source, destination } = await planTransfer(env, params, body, 'move');
  const crossBucket = destination.bucket.id !== source.bucket.id;
  // Across buckets the bytes follow under a key of the destination bucket; within one they stay.
  const key = crossBucket ? newStorageKey(env.site, destination.bucket, lastSegment(destination.path)) : source.object.storage_key;
  if (crossBucket) await destination.store.copy(source.object.storage_key, key);
  try {
    await env.db.transaction(async (tx) => {
      const locked = await lockObject(tx, env.site, source.bucket.id, source.object.file_path);
      if (locked === undefined || locked.id !== source.object.id || locked.storage_key !== source.object.storage_key) {
        throw new ConflictError('The object changed while it was being moved; try again.');
      }
      if ((await lockObject(tx, env.site, destination.bucket.id, destination.path)) !== undefined)
        throw new ConflictError(DESTINATION_TAKEN);
      await relocateObject(tx, env.site, locked.id, {
        bucketId: destination.bucket.id,
        path: destination.path,
        filename: lastSegment(destination.path),
        storageKey: key,
        userId: env.caller.userId!,
      });
      if (crossBucket) await queueDiscards(tx, env.site, source.bucket.id, [locked.storage_key]);
    });
  } catch (error) {
    if (crossBucket) await abandon(destination, [key]);
    throw error;
  }
  if (crossBucket) await flushDiscardsQuietly(env.db, storeFor(env, source.bucket), env.site, source.bucket.id, env.log);
  return { bucket: destination.bucket, object: await findObjectById(env.db, env.site, source.object.id) };
}
