// The object-store port: where object bytes live. The filesystem adapter is the embedded default,
// the S3 adapter serves deployed stacks and any S3-compatible endpoint. Services and routes ask the
// runtime for this port and never import an adapter or an AWS SDK client.
//
// Keys are opaque storage keys chosen by the storage service (built from site, bucket and object
// identifiers), never a client's path: a client path reaches storage only as object metadata, so a
// traversal attempt in a path can never name a file or S3 key outside the object's own.
import type { Readable } from 'node:stream';

/**
 * Keys per backend call of `deleteMany` where the backend batches (S3's DeleteObjects takes at most
 * 1000): callers removing many keys hand them over in slices of this size.
 */
export const DELETE_BATCH_SIZE = 1000;

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header resolved against the size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObjectInfo {
  size: number;
  /** Quoted strong entity tag, e.g. `"d41d8cd98f00b204e9800998ecf8427e"`. */
  etag: string;
  lastModified: Date;
  contentType?: string;
}

export interface PutOptions {
  contentType: string;
  /** Kept with the object where the store can (S3), and sent by whoever serves it from there (CloudFront). */
  cacheControl?: string;
  /** When known in advance (S3 needs it for a single PUT of a stream); adapters verify it. */
  contentLength?: number;
  /**
   * Stop and reject with ObjectTooLargeError once more bytes than this arrive, so an upload that
   * breaks the bucket's limit never lands whole in storage or memory.
   */
  maxBytes?: number;
}

export interface ObjectDownload extends StoredObjectInfo {
  /** The requested bytes only (the whole object, or the range). */
  body: Readable;
  /** Set when a range was asked for: the bytes `body` carries. */
  range?: ByteRange;
}

export interface ListOptions {
  /** Only keys after this one (it need not exist). */
  startAfter?: string;
}

/** A key found by listing, with the time its bytes were last written. */
export interface ListedKey {
  key: string;
  lastModified: Date;
}

export interface PresignOptions {
  expiresInSeconds: number;
}

export interface PresignUploadOptions extends PresignOptions {
  /** When given, the URL is signed for exactly this many bytes: the store refuses any other size. */
  contentLength?: number;
}

export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the PUT (for example `Content-Type`). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface ObjectStore {
  /** Named for the copy rule: objects copy only between buckets of the same provider. */
  readonly provider: 'filesystem' | 's3' | 'document_library';

  /** Stores the bytes under `key`, replacing what was there; the replacement is atomic. */
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObjectInfo>;

  /**
   * The object's bytes (or a range of them); ObjectMissingError when there is no such key. A range
   * ending past the last byte is served up to the last byte (`range` says what was served); one
   * starting past it is RangeNotSatisfiableError. The caller reads `body` to the end or destroys it.
   */
  get(key: string, range?: ByteRange): Promise<ObjectDownload>;

  /** The object's size and entity tag, or undefined when there is no such key. */
  head(key: string): Promise<StoredObjectInfo | undefined>;

  /** Copies the bytes of one key to another inside this store, without passing them through memory. */
  copy(sourceKey: string, destinationKey: string): Promise<StoredObjectInfo>;

  /**
   * Removes these keys (in batches where the backend has a batch call). Keys that do not exist are
   * not an error. Throws StorageUnavailableError when the backend fails, after removing what it could,
   * so a retry of the same call finishes the job.
   */
  deleteMany(keys: readonly string[]): Promise<void>;

  /**
   * The keys under `prefix` (`''` for the whole store) in ascending order of the key's characters
   * (S3's order), after `startAfter` when given: a caller that stops part-way goes on from the last
   * key it saw. Sweeps and tenant purges use it to find bytes no record points at; undefined where
   * the store cannot list (a document library, whose files go with its site).
   */
  listKeys?(prefix: string, options?: ListOptions): AsyncIterable<ListedKey>;

  /**
   * Removes temporary files of writes that never finished (a process killed mid-upload) last
   * touched before `olderThan`; answers how many went. Only stores that stage writes have them.
   */
  removeAbandonedTemporaries?(olderThan: Date): Promise<number>;

  /**
   * A URL the client PUTs the bytes to directly, bypassing the API (deployed mode, for uploads over
   * the Lambda payload limit). Undefined where the store has no such URL (the filesystem).
   */
  presignUpload?(key: string, contentType: string, options: PresignUploadOptions): Promise<PresignedUpload>;

  /** A URL the client GETs the bytes from directly (deployed mode, for large downloads). */
  presignDownload?(key: string, options: PresignOptions & { filename: string; contentType: string; attachment: boolean }): Promise<string>;
}
