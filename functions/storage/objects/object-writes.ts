// The two halves of every upload. First the bytes: checked against the bucket (MIME allow-list,
// the bytes' own signature, size limit enforced while streaming, no empty files) and stored under a new key. Then the record:
// inserted, or an existing one at that path switched to the new bytes, with the old bytes queued
// for removal in the same transaction. Whatever fails after the bytes landed removes them again.
import { ForbiddenError, PayloadTooLargeError, ValidationError } from '#shared/errors.ts';
import type { ObjectStore, StoredObjectInfo } from '#shared/storage/object-store.ts';
import { ObjectTooLargeError } from '#shared/storage/storage-errors.ts';
import { ConflictError } from '#shared/errors.ts';
import type { Readable } from 'node:stream';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { existingBucket } from '../buckets/bucket-service.ts';
import type { BucketParams } from '../buckets/bucket-schemas.ts';
import { checkedMimeType, sniffStream } from '../byte-signatures.ts';
import { mimeTypeAllowed } from '../mime-rules.ts';
import type { StorageEnv } from '../storage-env.ts';
import { queueDiscards } from '../discard-repository.ts';
import { abandonStoredBytes, flushDiscardsQuietly, newStorageKey, storeFor } from '../stored-bytes.ts';
import { assertMayWrite, canWrite } from './object-access.ts';
import { findObjectById, insertObject, lockObject, replaceObjectContent, type ObjectRow } from './object-repository.ts';

/** A bucket being written to, with the store of its bytes. */
export interface WriteTarget {
  env: StorageEnv;
  bucket: BucketRow;
  store: ObjectStore;
}

export interface StoredBytes {
  key: string;
  info: StoredObjectInfo;
  mimetype: string;
}

/** The bucket of the URL, for a caller who may write: 401 anonymous, 403 without access to the site. */
export async function writeTarget(env: StorageEnv, params: BucketParams): Promise<WriteTarget> {
  assertMayWrite(env.caller);
  const bucket = await existingBucket(env.db, env.site, params.app_slug, params.bucket_slug);
  return { env, bucket, store: storeFor(env, bucket) };
}

/**
 * Where the store presigns (S3), bodies over the direct limit take the presigned flow: deployed, a
 * larger one would not reach the function at all. 413 naming the way, before a byte is read.
 */
export function assertDirectUpload(target: WriteTarget, contentLength: number | undefined): void {
  const limit = target.env.transfers.directMaxBytes;
  if (limit === undefined || contentLength === undefined || contentLength <= limit || target.store.presignUpload === undefined) return;
  throw new PayloadTooLargeError(`Uploads over ${limit} bytes go through a presigned URL: POST <object path>/upload-url first.`, {
    extras: { direct_transfer_max_bytes: limit },
  });
}

/** Metadata documents stay small: they live in the object row and every list answer. */
export const MAX_METADATA_BYTES = 64 * 1024;

export function assertMetadataSize(metadata: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw ValidationError.forFields({ metadata: [`Metadata is limited to ${MAX_METADATA_BYTES} bytes of JSON.`] });
  }
}

/** 400 naming the allowed types when the bucket's allow-list does not admit `mimetype`. */
export function assertMimeAllowed(bucket: Pick<BucketRow, 'allowed_mime_types'>, mimetype: string): void {
  if (mimeTypeAllowed(mimetype, bucket.allowed_mime_types)) return;
  throw new ValidationError(
    `File type "${mimetype}" is not allowed in this bucket. Allowed types: ${bucket.allowed_mime_types.join(', ')}.`,
    { extras: { allowed_mime_types: bucket.allowed_mime_types } },
  );
}

/** The spec refuses empty files, whichever way they come in. */
export function emptyFileError(): ValidationError {
  return ValidationError.forFields({ file: ['The submitted file is empty.'] }, 'The submitted file is empty.');
}

export function assertSizeAllowed(bucket: Pick<BucketRow, 'file_size_limit'>, size: number): void {
  const limit = Number(bucket.file_size_limit);
  if (size > limit) throw new ObjectTooLargeError(limit);
}

/**
 * Stores one file's bytes under a new key, once their first bytes show that they are what
 * `mimetype` (the declared type, already in the allow-list) says (byte-signatures.ts); the type
 * stored is the one answered there. The bucket's size limit stops the stream as soon as it
 * is passed (and a Content-Length over it is refused before a byte is read); an empty file is
 * refused after the fact and its key removed.
 */
export async function storeBytes(
  target: WriteTarget,
  file: { stream: Readable; filename: string; mimetype: string; contentLength?: number },
): Promise<StoredBytes> {
  const { contentLength } = file;
  const limit = Number(target.bucket.file_size_limit);
  if (contentLength !== undefined) assertSizeAllowed(target.bucket, contentLength);
  const sniffed = await sniffStream(file.stream);
  let mimetype: string;
  try {
    mimetype = await checkedMimeType(file.mimetype, sniffed.head, target.bucket);
  } catch (error) {
    file.stream.destroy();
    throw error;
  }
  const key = newStorageKey(target.env.site, target.bucket, file.filename);
  const info = await target.store.put(key, sniffed.stream, { contentType: mimetype, contentLength, maxBytes: limit });
  if (info.size === 0) {
    await abandon(target, [key]);
    throw emptyFileError();
  }
  return { key, info, mimetype };
}

export function abandon(target: WriteTarget, keys: readonly string[]): Promise<void> {
  return abandonStoredBytes(target.env.db, target.store, target.env.site, target.bucket.id, keys, target.env.log);
}

export interface UploadRecord {
  path: string;
  filename: string;
  metadata: Record<string, unknown>;
  bytes: StoredBytes;
}

/**
 * Makes the stored bytes the object at `path`: a new record (created) or the existing one with its
 * old bytes discarded. The caller must be a member (assertMayWrite). On failure the new bytes go.
 */
export async function commitUpload(
  target: WriteTarget,
  upload: UploadRecord,
): Promise<{ bucket: BucketRow; object: ObjectRow; created: boolean }> {
  const { env, bucket } = target;
  const userId = env.caller.userId!;
  const content = {
    storageKey: upload.bytes.key,
    size: upload.bytes.info.size,
    mimetype: upload.bytes.mimetype,
    etag: upload.bytes.info.etag,
  };
  let outcome: { id: number; created: boolean };
  try {
    outcome = await env.db.transaction(async (tx) => {
      // Twice at most: an insert that lost a race finds the winner's row on the second pass.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const existing = await lockObject(tx, env.site, bucket.id, upload.path);
        if (existing !== undefined) {
          if (!canWrite(env.caller, existing, bucket)) {
            throw new ForbiddenError('An object you may not change already exists at this path.');
          }
          await replaceObjectContent(tx, env.site, existing.id, {
            ...content,
            filename: upload.filename,
            metadata: upload.metadata,
            userId,
          });
          await queueDiscards(tx, env.site, bucket.id, [existing.storage_key]);
          return { id: existing.id, created: false };
        }
        const id = await insertObject(tx, env.site, {
          ...content,
          bucketId: bucket.id,
          path: upload.path,
          filename: upload.filename,
          metadata: upload.metadata,
          visibility: null,
          userId,
        });
        if (id !== undefined) return { id, created: true };
      }
      throw new ConflictError('The path is being written by another request; try again.');
    });
  } catch (error) {
    await abandon(target, [upload.bytes.key]);
    throw error;
  }
  if (!outcome.created) await flushDiscardsQuietly(env.db, target.store, env.site, bucket.id, env.log);
  return { bucket, object: await findObjectById(env.db, env.site, outcome.id), created: outcome.created };
}
