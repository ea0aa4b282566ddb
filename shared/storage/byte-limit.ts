// The byte rules every adapter applies to an upload, in one place: the bucket's limit and the
// declared Content-Length are checked while the bytes stream through, so an adapter can refuse the
// upload before anything lands (before the rename, before the multipart upload completes).
import { Transform, type TransformCallback } from 'node:stream';
import { BadRequestError } from '#shared/errors.ts';
import type { PutOptions } from './object-store.ts';
import { ObjectTooLargeError } from './storage-errors.ts';

function lengthMismatch(actual: number, declared: number): BadRequestError {
  return new BadRequestError(`The body has ${actual} bytes but Content-Length said ${declared}`);
}

/** Checks a body whose size is known up front; refuses what a stream would be refused for. */
export function checkKnownSize(size: number, options: Pick<PutOptions, 'maxBytes' | 'contentLength'>): void {
  if (options.maxBytes !== undefined && size > options.maxBytes) throw new ObjectTooLargeError(options.maxBytes);
  if (options.contentLength !== undefined && size !== options.contentLength) throw lengthMismatch(size, options.contentLength);
}

/**
 * Passes bytes through, counting them; fails as soon as there are more than `maxBytes` or more
 * than the declared length, and at the end when there were fewer than declared (a declared length
 * over the limit throws from the constructor, before a byte is read). The first failure
 * is kept in `failure`, so a caller whose backend reports a later error (an abort that failed too)
 * can still name the real cause.
 */
export class ByteLimit extends Transform {
  bytes = 0;
  failure: Error | undefined;

  constructor(private readonly options: Pick<PutOptions, 'maxBytes' | 'contentLength'>) {
    super();
    const { maxBytes, contentLength } = options;
    // A declared length over the limit is refused before a byte is read.
    if (maxBytes !== undefined && contentLength !== undefined && contentLength > maxBytes) throw new ObjectTooLargeError(maxBytes);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    const { maxBytes, contentLength } = this.options;
    if (this.failure === undefined && maxBytes !== undefined && this.bytes > maxBytes) this.failure = new ObjectTooLargeError(maxBytes);
    if (this.failure === undefined && contentLength !== undefined && this.bytes > contentLength) {
      this.failure = lengthMismatch(this.bytes, contentLength);
    }
    if (this.failure !== undefined) {
      callback(this.failure);
      return;
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    const { contentLength } = this.options;
    if (this.failure === undefined && contentLength !== undefined && this.bytes !== contentLength) {
      this.failure = lengthMismatch(this.bytes, contentLength);
    }
    callback(this.failure);
  }
}
