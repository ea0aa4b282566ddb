// Uploads too large for the API to carry (deployed, a Lambda takes at most 6 MB) go straight to the
// store through a presigned PUT, in three steps:
// 1. `upload-url` checks what can be checked up front (the caller may write the path, the type is
//    in the bucket's allow-list, the announced size is within its limit and not zero), records a
//    `pending` object under a new storage key and answers a URL signed for that key, type and size;
// 2. the client PUTs the bytes to that URL;
// 3. `complete-upload` looks at what arrived (HEAD, and its first bytes for their signature),
//    checks it again, and makes it the object at the path: a new one, or the new content of the
//    one there, whose old bytes are discarded.
// No reader sees a pending object. Bytes that fail the checks go with their pending record; uploads
// never completed are swept, bytes included, an hour after their URL expired; bucket delete removes
// pending records' bytes like any others.
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#shared/errors.ts';
import type { ObjectStore, PresignedUpload, StoredObjectInfo } from '#shared/storage/object-store.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { checkedMimeType, SIGNATURE_SAMPLE_BYTES } from '../byte-signatures.ts';
import { mimeEssence, uploadMimeType } from '../mime-rules.ts';
import type { StorageCaller, StorageEnv } from '../storage-env.ts';
import { queueDiscards } from '../discard-repository.ts';
import { flushDiscardsQuietly, newStorageKey } from '../stored-bytes.ts';
import { canWrite } from './object-access.ts';
import { lastSegment, newObjectPath, normalizeFilename, normalizeObjectPath } from './object-keys.ts';
import {
  completePendingObject,
  deleteObjectRecords,
  findObject,
  findObjectById,
  findPendingObject,
  insertPendingObject,
  lockObject,
  replaceObjectContent,
  takeStalePendingObjects,
  type ObjectRow,
} from './object-repository.ts';
import type { CompleteUploadBody, ObjectParams, UploadUrlBody } from './object-schemas.ts';
import {
  abandon,
  assertMetadataSize,
  assertMimeAllowed,
  assertSizeAllowed,
  emptyFileError,
  writeTarget,
  type WriteTarget,
} from './object-writes.ts';
import type { UploadOutcome } from './upload-service.ts';

/** The largest single PUT S3 accepts; larger files would need a multipart flow. */
export const MAX_PRESIGNED_UPLOAD_BYTES = 5 * 1024 ** 3;

/** A PUT may still be running when its URL expires; its pending record waits this much longer. */
export const ABANDONED_UPLOAD_GRACE_SECONDS = 3600;

const NOT_SUPPORTED = { provider_error_code: 'provider_operation_not_supported' };

/** The store's presigned PUT; 400 where the store has none (the filesystem takes uploads through the API). */
function presignUploadOf(store: ObjectStore): NonNullable<ObjectStore['presignUpload']> {
  if (store.presignUpload === undefined) {
    throw new ValidationError('This storage provider takes uploads through the API only: upload the file to the object path.', {
      extras: NOT_SUPPORTED,
    });
  }
  return store.presignUpload.bind(store);
}

export interface UploadUrl {
  bucket: BucketRow;
  object: ObjectRow;
  upload: PresignedUpload;
}

/** Step 1: checks, a pending object, and the URL to PUT the bytes to. */
export async function requestUploadUrl(env: StorageEnv, params: ObjectParams, body: UploadUrlBody): Promise<UploadUrl> {
  const path = newObjectPath(params.key, 'path');
  const target = await writeTarget(env, params);
  const presign = presignUploadOf(target.store);
  const filename = body.filename === undefined ? lastSegment(path) : normalizeFilename(body.filename, 'filename');
  const mimetype = await uploadMimeType(body.content_type, filename);
  if (mimetype === undefined) throw ValidationError.forFields({ content_type: [`"${body.content_type}" is not a media type.`] });
  assertMimeAllowed(target.bucket, mimetype);
  if (body.size === 0) throw emptyFileError();
  assertSizeAllowed(target.bucket, body.size);
  if (body.size > MAX_PRESIGNED_UPLOAD_BYTES) {
    throw ValidationError.forFields({ size: [`A presigned upload carries at most ${MAX_PRESIGNED_UPLOAD_BYTES} bytes.`] });
  }
  const metadata = body.metadata ?? {};
  assertMetadataSize(metadata);
  const existing = await findObject(env.db, env.site, target.bucket.id, path);
  if (existing !== undefined && !canWrite(env.caller, existing, target.bucket)) {
    throw new ForbiddenError('An object you may not change already exists at this path.');
  }
  await sweepAbandonedUploads(target);

  const storageKey = newStorageKey(env.site, target.bucket, filename);
  // Signed before the record exists: a URL nobody was given cannot leave bytes behind.
  const upload = await presign(storageKey, mimetype, { expiresInSeconds: env.transfers.presignedUrlTtlSeconds, contentLength: body.size });
  const id = await insertPendingObject(env.db, env.site, {
    bucketId: target.bucket.id,
    path,
    filename,
    storageKey,
    size: body.size,
    mimetype,
    etag: '',
    metadata,
    visibility: null,
    userId: env.caller.userId!,
  });
  return { bucket: target.bucket, object: await findObjectById(env.db, env.site, id), upload };
}

/** What arrived must be what was announced and what the bucket takes (its rules may have changed). */
function checkArrived(bucket: BucketRow, pending: ObjectRow, arrived: StoredObjectInfo): void {
  if (arrived.size === 0) throw emptyFileError();
  assertSizeAllowed(bucket, arrived.size);
  if (arrived.size !== Number(pending.size)) {
    throw ValidationError.forFields({ size: [`${arrived.size} bytes arrived but ${Number(pending.size)} were announced.`] });
  }
  const type = arrived.contentType === undefined ? undefined : mimeEssence(arrived.contentType);
  if (type !== pending.mimetype) {
    throw ValidationError.forFields({
      content_type: [`The bytes arrived as "${arrived.contentType ?? ''}" but "${pending.mimetype}" was announced.`],
    });
  }
  assertMimeAllowed(bucket, type);
}

/** The first bytes of what arrived, enough for its signature (byte-signatures.ts). */
async function headOf(store: ObjectStore, key: string, size: number): Promise<Buffer> {
  const download = await store.get(key, { start: 0, end: Math.min(size, SIGNATURE_SAMPLE_BYTES) - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of download.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The pending record goes, then its bytes (queued for later if the store fails now). */
async function dropPendingUpload(target: WriteTarget, pending: ObjectRow): Promise<void> {
  await deleteObjectRecords(target.env.db, target.env.site, [pending.id]);
  await abandon(target, [pending.storage_key]);
}

function ownsUpload(caller: StorageCaller, pending: ObjectRow): boolean {
  return caller.staff || (caller.userId !== undefined && pending.created_by === caller.userId);
}

/** Step 3: the bytes checked, the pending object becomes the object at its path (201 new, 200 replaced). */
export async function completeUpload(env: StorageEnv, params: ObjectParams, body: CompleteUploadBody): Promise<UploadOutcome> {
  const path = normalizeObjectPath(params.key, 'path');
  const target = await writeTarget(env, params);
  presignUploadOf(target.store);
  const { bucket } = target;
  const pending = await findPendingObject(env.db, env.site, { bucketId: bucket.id, path, uuid: body.object_uuid });
  if (pending === undefined || !ownsUpload(env.caller, pending)) {
    throw new NotFoundError('No upload in progress with this object_uuid at this path: ask for a new upload URL.');
  }
  const arrived = await target.store.head(pending.storage_key);
  if (arrived === undefined) {
    throw new ConflictError('The bytes have not arrived: PUT them to the upload URL, then complete the upload.');
  }
  try {
    checkArrived(bucket, pending, arrived);
    await checkedMimeType(pending.mimetype, await headOf(target.store, pending.storage_key, arrived.size), bucket);
  } catch (error) {
    await dropPendingUpload(target, pending);
    throw error;
  }

  let outcome: { id: number; created: boolean };
  try {
    outcome = await makeObject(target, pending, arrived);
  } catch (error) {
    // The path went to an object this caller may not change: the upload cannot complete, ever.
    if (error instanceof ForbiddenError) await dropPendingUpload(target, pending);
    throw error;
  }
  if (!outcome.created) await flushDiscardsQuietly(env.db, target.store, env.site, bucket.id, env.log);
  return { bucket, object: await findObjectById(env.db, env.site, outcome.id), created: outcome.created };
}

/** In one transaction: the pending row becomes the object, or the object takes its bytes. */
async function makeObject(target: WriteTarget, pending: ObjectRow, arrived: StoredObjectInfo): Promise<{ id: number; created: boolean }> {
  const { env, bucket } = target;
  // Twice at most: a direct upload that created the path meanwhile is found on the second pass.
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await env.db.transaction(async (tx) => {
        const locked = await findPendingObject(
          tx,
          env.site,
          { bucketId: bucket.id, path: pending.file_path, uuid: pending.uuid },
          { lock: true },
        );
        if (locked === undefined) throw new NotFoundError('This upload was completed or abandoned meanwhile.');
        const existing = await lockObject(tx, env.site, bucket.id, locked.file_path);
        if (existing === undefined) {
          await completePendingObject(tx, env.site, locked.id, { size: arrived.size, etag: arrived.etag });
          return { id: locked.id, created: true };
        }
        if (!canWrite(env.caller, existing, bucket)) throw new ForbiddenError('An object you may not change already exists at this path.');
        // The pending row goes first: its storage key moves to the object (keys are unique).
        await deleteObjectRecords(tx, env.site, [locked.id]);
        await replaceObjectContent(tx, env.site, existing.id, {
          storageKey: locked.storage_key,
          size: arrived.size,
          mimetype: locked.mimetype,
          etag: arrived.etag,
          filename: locked.filename,
          metadata: locked.metadata,
          userId: env.caller.userId!,
        });
        await queueDiscards(tx, env.site, bucket.id, [existing.storage_key]);
        return { id: existing.id, created: false };
      });
    } catch (error) {
      if (!(error instanceof UniqueViolationError) || attempt >= 1) throw error;
    }
  }
}

/** Pending uploads whose URL expired an hour ago or more: the client gave up; records and bytes go. */
async function sweepAbandonedUploads(target: WriteTarget): Promise<void> {
  const { env, bucket, store } = target;
  const age = env.transfers.presignedUrlTtlSeconds + ABANDONED_UPLOAD_GRACE_SECONDS;
  const swept = await env.db.transaction(async (tx) => {
    const keys = await takeStalePendingObjects(tx, env.site, bucket.id, age);
    await queueDiscards(tx, env.site, bucket.id, keys);
    return keys.length;
  });
  if (swept > 0) await flushDiscardsQuietly(env.db, store, env.site, bucket.id, env.log);
}
