// Serving an object's bytes over HTTP: its stored type, length, entity tag and modification time;
// single byte ranges (206, or 416 when none of the object is in the range); conditional requests
// (If-None-Match → 304, If-Range); `nosniff` on every download, and every type outside a short
// allow-list (raster images, audio, video, plain text: mime-rules.ts) as an attachment with a
// sandboxing CSP, so the API host never renders a document a client uploaded.
import { contentDisposition } from '#shared/http/content-disposition.ts';
import { envelopeB } from '#shared/http/envelopes.ts';
import { reply, type HttpReply } from '#shared/http/reply.ts';
import type { ByteRange, ObjectDownload } from '#shared/storage/object-store.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { servedInline } from '../mime-rules.ts';
import type { StorageEnv } from '../storage-env.ts';
import { storeFor } from '../stored-bytes.ts';
import { effectiveVisibility } from './object-access.ts';
import type { ObjectRow } from './object-repository.ts';
import { objectRecord } from './object-representation.ts';
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

/** Headers every answer about the object's bytes carries, 304 and 416 included. */
export function objectHeaders(object: ObjectRow, bucket: BucketRow, forceAttachment: boolean): Record<string, string> {
  const attachment = forceAttachment || !servedInline(object.mimetype);
  return {
    ETag: object.etag,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': contentDisposition(attachment ? 'attachment' : 'inline', object.filename),
    // Revalidated with the entity tag each time; shared caches keep only public objects.
    'Cache-Control': `${effectiveVisibility(object, bucket) === 'public' ? 'public' : 'private'}, no-cache`,
    ...(attachment ? { 'Content-Security-Policy': "default-src 'none'; sandbox" } : {}),
  };
}

/** What to send before touching the bytes: 304, 416, or the range (undefined: the whole object). */
export function plannedDownload(
  object: ObjectRow,
  bucket: BucketRow,
  request: DownloadRequest,
): { answer: HttpReply } | { range?: ByteRange } {
  const headers = objectHeaders(object, bucket, request.forceAttachment);
  if (matchesEntityTag(request.ifNoneMatch, object.etag)) return { answer: reply(304, undefined, headers) };
  const size = Number(object.size);
  // If-Range with another validator than the current tag: the client's part is stale, send it all.
  const rangeHeader = request.ifRange === undefined || request.ifRange.trim() === object.etag ? request.range : undefined;
  const range = parseRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable') {
    return {
      answer: reply(
        416,
        { success: false, message: `The range is outside the object's ${size} bytes.`, status_code: 416 },
        { ...headers, 'Content-Range': `bytes */${size}` },
      ),
    };
  }
  return range.kind === 'range' ? { range: range.range } : {};
}

/** The 200 or 206 answer with the opened bytes; lengths come from the record of the object. */
export function bytesReply(object: ObjectRow, bucket: BucketRow, request: DownloadRequest, download: ObjectDownload): HttpReply {
  const size = Number(object.size);
  const headers: Record<string, string> = {
    ...objectHeaders(object, bucket, request.forceAttachment),
    'Content-Type': object.mimetype,
    'Last-Modified': download.lastModified.toUTCString(),
  };
  if (download.range === undefined) return reply(200, download.body, { ...headers, 'Content-Length': String(size) });
  const { start, end } = download.range;
  return reply(206, download.body, {
    ...headers,
    'Content-Length': String(end - start + 1),
    'Content-Range': `bytes ${start}-${end}/${size}`,
  });
}

/** GET `.../objects/{key}`: the bytes (whole, a range, or 304/416), or with `?metadata=true` the record. */
export async function serveObject(
  env: StorageEnv,
  params: ObjectParams,
  query: DownloadQuery,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<unknown> {
  const { bucket, object } = await readableObject(env, params);
  if (query.metadata === true) return envelopeB(objectRecord(object, bucket, env.origin), 'Object metadata retrieved successfully');
  const request: DownloadRequest = {
    range: headers.range,
    ifRange: headers['if-range'],
    ifNoneMatch: headers['if-none-match'],
    forceAttachment: query.download === true,
  };
  const plan = plannedDownload(object, bucket, request);
  if ('answer' in plan) return plan.answer;
  const redirect = await presignedDownload(env, bucket, object, request);
  if (redirect !== undefined) return redirect;
  return bytesReply(object, bucket, request, await openObjectBytes(env, bucket, object, plan.range));
}

/**
 * An object larger than the API may carry itself (deployed: the Lambda payload limit), in a store
 * that presigns: 302 to a presigned GET that answers with the same type and disposition (types
 * outside the inline allow-list still attachments). The store serves Range on it. Undefined: serve the bytes here.
 */
async function presignedDownload(env: StorageEnv, bucket: BucketRow, object: ObjectRow, request: DownloadRequest): Promise<HttpReply | undefined> {
  const limit = env.transfers.directMaxBytes;
  const store = storeFor(env, bucket);
  if (limit === undefined || Number(object.size) <= limit || store.presignDownload === undefined) return undefined;
  const url = await store.presignDownload(object.storage_key, {
    expiresInSeconds: env.transfers.presignedUrlTtlSeconds,
    filename: object.filename,
    contentType: object.mimetype,
    attachment: request.forceAttachment || !servedInline(object.mimetype),
  });
  // The URL expires: nobody may keep this answer.
  return reply(302, undefined, { Location: url, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
}
