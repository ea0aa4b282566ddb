// The HTTP answer to each outcome of a download (downloads.ts): the object's bytes with their stored
// type, length, entity tag and modification time (200, or 206 for a range), 304, 302 to a presigned
// URL, 416. `nosniff` goes on every answer about the bytes, and every type outside a short allow-list
// (raster images, audio, video, plain text: mime-rules.ts) is an attachment with a sandboxing CSP,
// so the API host never renders a document a client uploaded.
import { contentDisposition } from '#shared/http/content-disposition.ts';
import { reply, type HttpReply } from '#shared/http/reply.ts';
import { RangeNotSatisfiableError } from '#shared/storage/storage-errors.ts';
import { servedInline } from '../mime-rules.ts';
import type { ObjectServing, ServedObject } from './downloads.ts';
import { effectiveVisibility } from './object-access.ts';
import { objectRecord, type ObjectRecord } from './object-representation.ts';

/** Headers every answer about the object's bytes carries, 304 and 416 included. */
function objectHeaders({ object, bucket, forceAttachment }: ServedObject): Record<string, string> {
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

/** The answer of GET `.../objects/{key}`: the record (the route's Envelope B wraps it) or an HttpReply. */
export function downloadReply(serving: ObjectServing, origin: string): ObjectRecord | HttpReply {
  switch (serving.kind) {
    case 'metadata':
      return objectRecord(serving.object, serving.bucket, origin);
    case 'not-modified':
      return reply(304, undefined, objectHeaders(serving));
    case 'unsatisfiable':
      throw new RangeNotSatisfiableError(serving.size, {
        message: `The range is outside the object's ${serving.size} bytes.`,
        headers: objectHeaders(serving),
      });
    case 'redirect':
      // The URL expires: nobody may keep this answer.
      return reply(302, undefined, { Location: serving.url, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    case 'bytes': {
      const { object, download } = serving;
      const size = Number(object.size);
      const headers: Record<string, string> = {
        ...objectHeaders(serving),
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
  }
}
