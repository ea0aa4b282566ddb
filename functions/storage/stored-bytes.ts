// Where an object's bytes live and how they go away. Storage keys are the service's own
// (`<site uuid>/<bucket uuid>/<random uuid>`, a new one for every upload or copy; in a document
// library followed by the cleaned-up file name), so a client path never names a file or S3 key, and
// a replaced upload never overwrites bytes a record still uses.
// Bytes no record points at any more are queued in `object_discards` (discard-repository.ts) by the transaction that drops
// the reference and removed from the store after it commits; whatever a storage failure leaves in
// the queue is retried by later deletes in the bucket and by bucket delete.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '#shared/db/database.ts';
import { AppError } from '#shared/errors.ts';
import type { RequestLog } from '#shared/logger.ts';
import { DELETE_BATCH_SIZE, type ObjectStore } from '#shared/storage/object-store.ts';
import { DocumentLibraryNotConfiguredError } from '#shared/storage/document-library/document-library-errors.ts';
import { libraryFileName } from '#shared/storage/document-library/drive.ts';
import { StorageUnavailableError } from '#shared/storage/storage-errors.ts';
import { describeError } from '#shared/logger.ts';
import type { SchemaScopedSite } from '#shared/db/sql-identifiers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { BucketRow } from './buckets/bucket-repository.ts';
import { deleteQueuedDiscards, queueDiscards, queuedDiscards } from './discard-repository.ts';
import type { ByteStores } from './storage-env.ts';

/**
 * A fresh storage key. In a document library the key is also the document's place and name in
 * SharePoint, so there it ends with the file's name (cleaned up, under a random folder): Office
 * opens documents by their extension, and people see the name.
 */
export function newStorageKey(site: Pick<Tenant, 'uuid'>, bucket: Pick<BucketRow, 'uuid' | 'storage_provider'>, filename: string): string {
  const key = `${site.uuid}/${bucket.uuid}/${randomUUID()}`;
  return bucket.storage_provider === 'document_library' ? `${key}/${libraryFileName(filename)}` : key;
}

/**
 * The store holding a bucket's bytes, picked by its `storage_provider`: the object store, or the
 * site's document library (400 `document_library_not_configured` on a platform without one).
 */
export function storeFor(stores: ByteStores, bucket: Pick<BucketRow, 'storage_provider'>): ObjectStore {
  if (bucket.storage_provider === 'object_store') return stores.objectStore;
  if (stores.documentLibrary === undefined) throw new DocumentLibraryNotConfiguredError();
  return stores.documentLibrary.forSite(stores.site.slug).store;
}

/** Removes keys from the store; any failure is the spec's storage failure (500). */
export async function removeFromStore(store: ObjectStore, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  try {
    await store.deleteMany(keys);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new StorageUnavailableError('Storage could not remove the files; nothing else was changed, try again.', { cause: error });
  }
}

/**
 * Removes the bucket's queued keys from the store, a batch at a time, and then their queue rows.
 * Throws StorageUnavailableError when the store fails; the rows of that batch stay queued.
 */
export async function flushDiscards(db: Queryable, store: ObjectStore, site: SchemaScopedSite, bucketId: number): Promise<void> {
  for (;;) {
    const queued = await queuedDiscards(db, site, bucketId, DELETE_BATCH_SIZE);
    if (queued.length === 0) return;
    await removeFromStore(
      store,
      queued.map((row) => row.storage_key),
    );
    await deleteQueuedDiscards(db, site, queued);
    if (queued.length < DELETE_BATCH_SIZE) return;
  }
}

/** After a commit: try to remove what it discarded now; a failure waits in the queue for a retry. */
export async function flushDiscardsQuietly(
  db: Queryable,
  store: ObjectStore,
  site: SchemaScopedSite,
  bucketId: number,
  log: RequestLog,
): Promise<void> {
  await flushDiscards(db, store, site, bucketId).catch((error: unknown) => {
    log.warn('stored bytes left queued for removal', { bucketId, ...describeError(error) });
  });
}

/**
 * Removes bytes that were stored but never became an object (a refused or failed upload). When the
 * store fails too, the key is queued so bucket delete finds it later.
 */
export async function abandonStoredBytes(
  db: Queryable,
  store: ObjectStore,
  site: SchemaScopedSite,
  bucketId: number,
  keys: readonly string[],
  log: RequestLog,
): Promise<void> {
  if (keys.length === 0) return;
  try {
    await removeFromStore(store, keys);
  } catch (error) {
    log.warn('could not remove the bytes of a refused upload; queued for removal', { bucketId, ...describeError(error) });
    await queueDiscards(db, site, bucketId, keys).catch((queueError: unknown) => {
      log.error('bytes of a refused upload are orphaned', { bucketId, keys, ...describeError(queueError) });
    });
  }
}
