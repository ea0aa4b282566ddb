// The embedded default object store: each object is one file under a root folder (DATA_DIR/objects).
// Writes land in a temporary file first and are renamed into place, so a reader sees the old bytes
// or the new ones, never half an upload, and an upload refused half-way leaves nothing behind.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import { copyFile, mkdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestError } from '#shared/errors.ts';
import type { ByteRange, ObjectDownload, ObjectStore, PutOptions, StoredObjectInfo } from './object-store.ts';
import { ObjectMissingError, ObjectTooLargeError, StorageUnavailableError } from './storage-errors.ts';

/**
 * Bytes buffered per stream stage. Node's 16 KB default stops the pipe after every socket read
 * while a disk write is in flight; with room for a few reads the file stream writes them in one
 * call (writev), which roughly doubles upload throughput, and memory stays bounded by this size.
 */
const STREAM_BUFFER_BYTES = 1024 * 1024;

/** Storage keys are the service's own: path segments of safe characters, never `.` or `..`. */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Counts the bytes going through and fails once there are more than the limit. */
class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number | undefined) {
    super({ highWaterMark: STREAM_BUFFER_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes) {
      callback(new ObjectTooLargeError(this.maxBytes));
      return;
    }
    callback(null, chunk);
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Size and modification time identify a file's content here; every write makes a new file. */
function infoOf(stats: Stats): StoredObjectInfo {
  return {
    size: stats.size,
    etag: `"${stats.size.toString(16)}-${Math.round(stats.mtimeMs * 1000).toString(16)}-${stats.ino.toString(16)}"`,
    lastModified: stats.mtime,
  };
}

export class FilesystemObjectStore implements ObjectStore {
  readonly provider = 'filesystem' as const;
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private fileOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    return path.join(this.root, ...key.split('/'));
  }

  private temporaryFile(): string {
    return path.join(this.root, '.incoming', randomUUID());
  }

  private async moveIntoPlace(temporary: string, file: string): Promise<StoredObjectInfo> {
    await mkdir(path.dirname(file), { recursive: true });
    await rename(temporary, file);
    return infoOf(await stat(file));
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObjectInfo> {
    const file = this.fileOf(key);
    const temporary = this.temporaryFile();
    await mkdir(path.dirname(temporary), { recursive: true });
    const counter = new ByteLimit(options.maxBytes);
    try {
      await pipeline(
        Buffer.isBuffer(body) ? Readable.from([body]) : body,
        counter,
        createWriteStream(temporary, { highWaterMark: STREAM_BUFFER_BYTES }),
      );
      if (options.contentLength !== undefined && counter.bytes !== options.contentLength) {
        throw new BadRequestError(`The body has ${counter.bytes} bytes but Content-Length said ${options.contentLength}`);
      }
      return { ...(await this.moveIntoPlace(temporary, file)), contentType: options.contentType };
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<ObjectDownload> {
    const file = this.fileOf(key);
    let stats: Stats;
    try {
      stats = await stat(file);
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(key);
      throw error;
    }
    const chunks = { highWaterMark: STREAM_BUFFER_BYTES };
    const body = range === undefined ? createReadStream(file, chunks) : createReadStream(file, { ...chunks, start: range.start, end: range.end });
    return { ...infoOf(stats), body, ...(range === undefined ? {} : { range }) };
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    try {
      return infoOf(await stat(this.fileOf(key)));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async copy(sourceKey: string, destinationKey: string): Promise<StoredObjectInfo> {
    const source = this.fileOf(sourceKey);
    const file = this.fileOf(destinationKey);
    const temporary = this.temporaryFile();
    await mkdir(path.dirname(temporary), { recursive: true });
    try {
      await copyFile(source, temporary);
      return await this.moveIntoPlace(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      if (isMissing(error)) throw new ObjectMissingError(sourceKey);
      throw error;
    }
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    const files = keys.map((key) => this.fileOf(key));
    const failures: unknown[] = [];
    for (const file of files) {
      try {
        await rm(file, { force: true });
      } catch (error) {
        failures.push(error);
        continue;
      }
      // Drop the folders the object leaves empty; a folder still in use refuses, which is fine.
      await rmdir(path.dirname(file)).catch(() => undefined);
    }
    if (failures.length > 0) {
      throw new StorageUnavailableError(`Could not remove ${failures.length} of ${files.length} files; try again.`, {
        cause: failures[0],
      });
    }
  }
}
