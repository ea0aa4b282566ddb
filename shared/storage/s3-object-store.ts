// The S3 adapter of the object-store port, for AWS and any S3-compatible endpoint. Uploads of
// unknown length go up as multipart uploads of fixed-size parts, so memory per upload is about
// part size × parts in flight whatever the object's size; downloads hand back the response stream.
import { pipeline, Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3StoreConfig } from '#shared/config.ts';
import { AppError } from '#shared/errors.ts';
import { contentDisposition } from '#shared/http/content-disposition.ts';
import { ByteLimit, checkKnownSize } from './byte-limit.ts';
import {
  DELETE_BATCH_SIZE,
  type ByteRange,
  type ListedKey,
  type ListOptions,
  type ObjectDownload,
  type ObjectStore,
  type PresignOptions,
  type PresignUploadOptions,
  type PresignedUpload,
  type PutOptions,
  type StoredObjectInfo,
} from './object-store.ts';
import { ObjectMissingError, RangeNotSatisfiableError, StorageUnavailableError } from './storage-errors.ts';

/** S3's smallest part (except the last); parts this size keep an upload's memory small. */
const DEFAULT_PART_SIZE = 5 * 1024 * 1024;
/** Parts uploaded at once: two keeps the pipe full on loopback and in-region. */
const DEFAULT_QUEUE_SIZE = 2;

export interface S3ObjectStoreOptions {
  client: S3Client;
  bucket: string;
  /** Bytes per multipart part (S3's minimum, 5 MiB, unless raised). */
  partSize?: number;
  /** Parts in flight at once. */
  queueSize?: number;
}

/**
 * The client for a configuration. Checksums are computed only where S3 requires them: the SDK's
 * default (a CRC32 on every request) signs an empty-body checksum into presigned PUT URLs, which S3
 * then rejects, and sends aws-chunked bodies that many S3-compatible servers cannot read.
 */
export function s3ClientFor(config: S3StoreConfig): S3Client {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
  });
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissingKey(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

/**
 * Errors of the S3 calls (the SDK tags every one it returns with `$metadata`) become the port's
 * StorageUnavailableError; others (our own, or a failing source stream) pass through unchanged.
 */
function storageFailure(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (typeof error === 'object' && error !== null && '$metadata' in error) {
    return new StorageUnavailableError(undefined, { cause: error });
  }
  return error;
}

/** `bytes 0-9/100` → the served range and the whole size. */
function parseContentRange(header: string | undefined): { range: ByteRange; size: number } | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  if (match === null) return undefined;
  return { range: { start: Number(match[1]), end: Number(match[2]) }, size: Number(match[3]) };
}

/** CopySource is `bucket/key`, URL-encoded per path segment (slashes stay). */
function copySourceOf(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

export class S3ObjectStore implements ObjectStore {
  readonly provider = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(options: S3ObjectStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObjectInfo> {
    if (Buffer.isBuffer(body)) return this.putBuffer(key, body, options);
    let counter: ByteLimit;
    try {
      counter = new ByteLimit(options);
    } catch (error) {
      body.destroy();
      throw error;
    }
    // Errors of the source reach the counter (and so the upload); destroying the counter destroys
    // the source. Failures are taken from the upload below, not from this callback.
    const counted = pipeline(body, counter, () => undefined);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: counted, ContentType: options.contentType, CacheControl: options.cacheControl },
      partSize: this.partSize,
      queueSize: this.queueSize,
      // A failed upload aborts its multipart upload, so no part of it is kept (or billed).
      leavePartsOnError: false,
    });
    try {
      const result = await upload.done();
      return { size: counter.bytes, etag: result.ETag ?? '', lastModified: new Date(), contentType: options.contentType };
    } catch (error) {
      counter.destroy();
      // The counter's refusal is the real cause even when aborting the multipart upload failed too.
      throw counter.failure ?? storageFailure(error);
    }
  }

  private async putBuffer(key: string, body: Buffer, options: PutOptions): Promise<StoredObjectInfo> {
    checkKnownSize(body.length, options);
    try {
      const result = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: options.contentType,
          CacheControl: options.cacheControl,
          ContentLength: body.length,
        }),
      );
      return { size: body.length, etag: result.ETag ?? '', lastModified: new Date(), contentType: options.contentType };
    } catch (error) {
      throw storageFailure(error);
    }
  }

  async get(key: string, range?: ByteRange): Promise<ObjectDownload> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range === undefined ? undefined : `bytes=${range.start}-${range.end}`,
        }),
      );
      if (!(result.Body instanceof Readable)) throw new Error('The S3 client returned a body that is not a Node stream');
      const info = {
        etag: result.ETag ?? '',
        lastModified: result.LastModified ?? new Date(),
        contentType: result.ContentType,
        body: result.Body,
      };
      if (range === undefined) return { ...info, size: result.ContentLength ?? 0 };
      const served = parseContentRange(result.ContentRange);
      if (served === undefined) throw new Error(`S3 answered a range request with Content-Range ${JSON.stringify(result.ContentRange)}`);
      return { ...info, size: served.size, range: served.range };
    } catch (error) {
      if (isMissingKey(error)) throw new ObjectMissingError(key);
      if (range !== undefined && statusOf(error) === 416) {
        const info = await this.head(key);
        if (info === undefined) throw new ObjectMissingError(key);
        throw new RangeNotSatisfiableError(info.size);
      }
      throw storageFailure(error);
    }
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    try {
      const result = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: result.ContentLength ?? 0,
        etag: result.ETag ?? '',
        lastModified: result.LastModified ?? new Date(),
        contentType: result.ContentType,
      };
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw storageFailure(error);
    }
  }

  /** A server-side copy (CopyObject: up to 5 GB, the source's type and metadata kept). */
  async copy(sourceKey: string, destinationKey: string): Promise<StoredObjectInfo> {
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: destinationKey,
          CopySource: copySourceOf(this.bucket, sourceKey),
          MetadataDirective: 'COPY',
        }),
      );
    } catch (error) {
      if (isMissingKey(error)) throw new ObjectMissingError(sourceKey);
      throw storageFailure(error);
    }
    const info = await this.head(destinationKey);
    if (info === undefined) throw new ObjectMissingError(destinationKey);
    return info;
  }

  /**
   * DeleteObjects in batches of 1000, one after the other. A failed batch, or a key S3 reports as
   * not deleted, does not stop the others: every batch is attempted, then the failure is thrown,
   * so a retry of the same call has only what is left to remove.
   */
  async deleteMany(keys: readonly string[]): Promise<void> {
    const unique = [...new Set(keys)];
    const failures: unknown[] = [];
    let failedKeys = 0;
    for (let start = 0; start < unique.length; start += DELETE_BATCH_SIZE) {
      const batch = unique.slice(start, start + DELETE_BATCH_SIZE);
      try {
        const result = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
          }),
        );
        const errors = result.Errors ?? [];
        if (errors.length > 0) {
          failedKeys += errors.length;
          failures.push(new Error(`S3 did not delete ${errors[0]!.Key}: ${errors[0]!.Code} ${errors[0]!.Message}`));
        }
      } catch (error) {
        failedKeys += batch.length;
        failures.push(error);
      }
    }
    if (failures.length > 0) {
      throw new StorageUnavailableError(`Could not remove ${failedKeys} of ${unique.length} objects from storage; try again.`, {
        cause: failures[0],
      });
    }
  }

  /**
   * Pages through ListObjectsV2 (1000 keys a call, in S3's key order), one page in memory at a
   * time; a failure is the store's, to retry later.
   */
  async *listKeys(prefix: string, options: ListOptions = {}): AsyncIterable<ListedKey> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix === '' ? undefined : prefix,
          // S3 ignores StartAfter once a continuation token is given.
          StartAfter: token === undefined ? options.startAfter : undefined,
          ContinuationToken: token,
        }),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key !== undefined) yield { key: item.Key, lastModified: item.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /**
   * A presigned PUT. The content type (and the length, when given) are signed, so the client must
   * send exactly those headers and S3 refuses a different type or size.
   */
  async presignUpload(key: string, contentType: string, options: PresignUploadOptions): Promise<PresignedUpload> {
    const signed = new Set(['content-type']);
    if (options.contentLength !== undefined) signed.add('content-length');
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: options.contentLength }),
      { expiresIn: options.expiresInSeconds, signableHeaders: signed },
    );
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (options.contentLength !== undefined) headers['Content-Length'] = String(options.contentLength);
    return { url, method: 'PUT', headers, expiresAt: new Date(Date.now() + options.expiresInSeconds * 1000) };
  }

  /** A presigned GET whose response carries the object's type and the disposition asked for. */
  async presignDownload(
    key: string,
    options: PresignOptions & { filename: string; contentType: string; attachment: boolean },
  ): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: options.contentType,
        ResponseContentDisposition: contentDisposition(options.attachment ? 'attachment' : 'inline', options.filename),
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }
}
