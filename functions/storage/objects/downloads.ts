// Deciding what a download of an object is: its record (`?metadata=true`), not modified (If-None-Match),
// a presigned redirect for an object too large to carry, or its bytes, whole or a single range
// (RFC 9110 §14; If-Range), or a range outside it. download-replies.ts turns each outcome into the
// HTTP answer.
import { Readable } from 'node:stream';
import type { ByteRange, ObjectDownload } from '#shared/storage/object-store.ts';
import { ObjectMissingError } from '#shared/storage/storage-errors.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { servedInline } from '../mime-rules.ts';
import type { StorageEnv } from '../storage-env.ts';
import { storeFor } from '../stored-bytes.ts';
import type { ObjectRow } from './object-repository.ts';
import type { DownloadQuery, ObjectParams } from './object-schemas.ts';
import { openObjectBytes, readableObject } from './object-service.ts';

export type RangeRequest = { kind: 'whole' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Reads a Range header against the object's size (RFC 9110 §14). Only one range is served; a
 * malformed header or several ranges are ignored (the whole object is sent), as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (match === null) return { kind: 'whole' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } };
}

/** Whether an If-None-Match header names this entity tag (weak comparison, `*` matches any). */
export function matchesEntityTag(header: string | undefined, etag: string): boolean {
  if (header === undefined || etag === '') return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export interface DownloadRequest {
  range?: string;
  ifRange?: string;
  ifNoneMatch?: string;
  /** `?download=true`: an attachment whatever the type. */
  forceAttachment: boolean;
}

/** An object and how it is to be sent: inline or, whatever its type, as an attachment. */
export interface ServedObject {
  bucket: BucketRow;
  object: ObjectRow;
  forceAttachment: boolean;
}

export type ObjectServing =
  | { kind: 'metadata'; bucket: BucketRow; object: ObjectRow }
  | ({ kind: 'not-modified' } & ServedObject)
  | ({ kind: 'unsatisfiable'; size: number } & ServedObject)
  | { kind: 'redirect'; url: string }
  | ({ kind: 'bytes'; download: ObjectDownload } & ServedObject);

/**
 * GET `.../objects/{key}`: what to answer; a range outside the object is RangeNotSatisfiableError.
 * `headersOnly` (HEAD): the same answer with the stored bytes' facts but without opening them.
 */
export async function serveObject(
  env: StorageEnv,
  params: ObjectParams,
  query: DownloadQuery,
  headers: Readonly<Record<string, string | undefined>>,
  headersOnly = false,
): Promise<ObjectServing> {
  const { bucket, object } = await readableObject(env, params);
  if (query.metadata === true) return { kind: 'metadata', bucket, object };
  const request: DownloadRequest = {
    range: headers.range,
    ifRange: headers['if-range'],
    ifNoneMatch: headers['if-none-match'],
    forceAttachment: query.download === true,
  };
  const served = { bucket, object, forceAttachment: request.forceAttachment };
  if (matchesEntityTag(request.ifNoneMatch, object.etag)) return { kind: 'not-modified', ...served };
  const size = Number(object.size);
  // If-Range with another validator than the current tag: the client's part is stale, send it all.
  const rangeHeader = request.ifRange === undefined || request.ifRange.trim() === object.etag ? request.range : undefined;
  const range = parseRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable') return { kind: 'unsatisfiable', size, ...served };
  const url = await presignedDownloadUrl(env, bucket, object, request);
  if (url !== undefined) return { kind: 'redirect', url };
  const wanted = range.kind === 'range' ? range.range : undefined;
  return {
    kind: 'bytes',
    ...served,
    download: headersOnly ? await describeObjectBytes(env, bucket, object, wanted) : await openObjectBytes(env, bucket, object, wanted),
  };
}

/** What `openObjectBytes` would answer, from the store's facts about the bytes, with an empty body. */
async function describeObjectBytes(env: StorageEnv, bucket: BucketRow, object: ObjectRow, range?: ByteRange): Promise<ObjectDownload> {
  const info = await storeFor(env, bucket).head(object.storage_key);
  if (info === undefined) throw new ObjectMissingError(object.storage_key);
  return { ...info, body: Readable.from([]), range };
}

/**
 * An object larger than the API may carry itself (deployed: the Lambda payload limit), in a store
 * that presigns: a presigned GET that answers with the same type and disposition (types outside the
 * inline allow-list still attachments). The store serves Range on it. Undefined: serve the bytes here.
 */
async function presignedDownloadUrl(
  env: StorageEnv,
  bucket: BucketRow,
  object: ObjectRow,
  request: DownloadRequest,
): Promise<string | undefined> {
  const limit = env.transfers.directMaxBytes;
  const store = storeFor(env, bucket);
  if (limit === undefined || Number(object.size) <= limit || store.presignDownload === undefined) return undefined;
  return store.presignDownload(object.storage_key, {
    expiresInSeconds: env.transfers.presignedUrlTtlSeconds,
    filename: object.filename,
    contentType: object.mimetype,
    attachment: request.forceAttachment || !servedInline(object.mimetype),
  });
}
