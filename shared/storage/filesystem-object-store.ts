// The embedded default object store: each object is one file under a root folder (DATA_DIR/objects).
// Writes land in a temporary file first, are flushed to the disk (fsync) and renamed into place, the
// folder flushed too, before `put` answers: a reader sees the old bytes or the new ones, never half
// an upload; an upload refused half-way leaves nothing behind; and bytes whose record the caller
// then commits survive a crash of the process or the machine. Temporary files of a process killed
// mid-upload are removed by `removeAbandonedTemporaries` (the maintenance sweep).
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type Dirent, type Stats } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ByteLimit } from './byte-limit.ts';
import type { ByteRange, ListedKey, ListOptions, ObjectDownload, ObjectStore, PutOptions, StoredObjectInfo } from './object-store.ts';
import {
  InsufficientStorageError,
  isOutOfSpace,
  ObjectMissingError,
  RangeNotSatisfiableError,
  StorageUnavailableError,
} from './storage-errors.ts';

/**
 * Bytes buffered per file stream. Node's 16 KB default (64 KB for reads) stops the pipe after every
 * socket read while a disk write is in flight; with room for a few reads the file stream writes
 * them in one call (writev) and reads come in fewer, larger chunks. Memory stays bounded by it.
 */
const FILE_STREAM_BUFFER = { highWaterMark: 1024 * 1024 };
/**
 * Reads go in 4 MiB chunks: each chunk is one thread-pool read and one socket write, and where
 * every system call is dear (as on these virtual machines) a download served from the page cache
 * ran about a tenth faster than with 1 MiB chunks. A download holds at most two chunks in memory.
 */
const FILE_READ_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * A smaller object is read in one chunk of its own size: a 4 MiB buffer allocated (and zeroed) for a
 * 200 KB file cost a static site's assets three quarters of their throughput (hosting benchmark).
 */
function readBuffer(bytes: number): { highWaterMark: number } {
  return { highWaterMark: Math.max(16 * 1024, Math.min(FILE_READ_BUFFER_BYTES, bytes)) };
}

/** Where writes are staged; never a key's first segment (keys cannot start with `.`). */
const INCOMING = '.incoming';

/** Flushes a file's (or a folder's) data and metadata to the disk. */
async function flushToDisk(file: string, mode: 'r' | 'r+'): Promise<void> {
  const handle = await open(file, mode);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Storage keys are the service's own: path segments of safe characters, never `.` or `..`. */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * No object has this key: no such file, or a file where the key has a folder (`a/b` when `a` is an
 * object: ENOTDIR), or a name too long for the disk. S3 answers all of them NoSuchKey.
 */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG';
}

/** Size and modification time identify a file's content here; every write makes a new file. */
function infoOf(stats: Stats): StoredObjectInfo {
  return {
    size: stats.size,
    etag: `"${stats.size.toString(16)}-${Math.round(stats.mtimeMs * 1000).toString(16)}-${stats.ino.toString(16)}"`,
    lastModified: stats.mtime,
  };
}

/** Opens the stream an upload's bytes are written to (a file stream; a test gives one that fills up). */
export type OpenWriteStream = (file: string) => Writable;

const openFileStream: OpenWriteStream = (file) => createWriteStream(file, FILE_STREAM_BUFFER);

export class FilesystemObjectStore implements ObjectStore {
  readonly provider = 'filesystem' as const;
  private readonly root: string;

  constructor(
    root: string,
    private readonly openWriteStream: OpenWriteStream = openFileStream,
  ) {
    this.root = path.resolve(root);
  }

  private fileOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    return path.join(this.root, ...key.split('/'));
  }

  private temporaryFile(): string {
    return path.join(this.root, INCOMING, randomUUID());
  }

  /** The bytes on the disk first, then the name; the folder's entry on the disk before answering. */
  private async moveIntoPlace(temporary: string, file: string): Promise<StoredObjectInfo> {
    await flushToDisk(temporary, 'r+');
    await mkdir(path.dirname(file), { recursive: true });
    await rename(temporary, file);
    await flushToDisk(path.dirname(file), 'r');
    return infoOf(await stat(file));
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObjectInfo> {
    const file = this.fileOf(key);
    const temporary = this.temporaryFile();
    let sink: Writable | undefined;
    try {
      const counter = new ByteLimit(options);
      await mkdir(path.dirname(temporary), { recursive: true });
      sink = this.openWriteStream(temporary);
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, counter, sink);
      return { ...(await this.moveIntoPlace(temporary, file)), contentType: options.contentType };
    } catch (error) {
      if (!Buffer.isBuffer(body)) body.destroy();
      // The failed pipeline destroyed the file stream, which may still be opening (creating) the
      // temporary file: removing it before the stream has closed would leave the file behind.
      if (sink !== undefined && !sink.closed) await once(sink, 'close').catch(() => undefined);
      await rm(temporary, { force: true });
      throw isOutOfSpace(error) ? new InsufficientStorageError({ cause: error }) : error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<ObjectDownload> {
    const file = this.fileOf(key);
    // Open first, then stat the open file: a replacement renamed in between cannot mix the old
    // size with the new bytes.
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(key);
      throw error;
    }
    try {
      const stats = await handle.stat();
      // A folder holds other keys; it is not an object itself (S3 has no such key either).
      if (!stats.isFile()) throw new ObjectMissingError(key);
      const info = infoOf(stats);
      if (range === undefined) return { ...info, body: handle.createReadStream(readBuffer(info.size)) };
      if (range.start >= info.size) throw new RangeNotSatisfiableError(info.size);
      const served = { start: range.start, end: Math.min(range.end, info.size - 1) };
      return {
        ...info,
        body: handle.createReadStream({ ...readBuffer(served.end - served.start + 1), start: served.start, end: served.end }),
        range: served,
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    try {
      const stats = await stat(this.fileOf(key));
      return stats.isFile() ? infoOf(stats) : undefined;
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
      await copyFile(source, temporary).catch((error: unknown) => {
        // Only the source's absence is a missing object; a failure placing the copy is not.
        throw isMissing(error) ? new ObjectMissingError(sourceKey) : error;
      });
      return await this.moveIntoPlace(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
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
      await this.removeEmptyFolders(path.dirname(file));
    }
    if (failures.length > 0) {
      throw new StorageUnavailableError(`Could not remove ${failures.length} of ${files.length} files; try again.`, {
        cause: failures[0],
      });
    }
  }

  /**
   * Walks the folders in key order, one folder's names in memory at a time (not the whole tree):
   * a folder sorts as its name followed by `/`, so `a-b` comes before `a/x` as in S3. A folder
   * whose keys all sort before `startAfter` is not read at all.
   */
  async *listKeys(prefix: string, options: ListOptions = {}): AsyncIterable<ListedKey> {
    const folder = prefix === '' ? this.root : this.fileOf(prefix.replace(/\/+$/, ''));
    yield* this.walk(folder, options.startAfter);
  }

  private async *walk(folder: string, startAfter: string | undefined): AsyncIterable<ListedKey> {
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw error;
    }
    const sortName = (entry: Dirent) => (entry.isDirectory() ? `${entry.name}/` : entry.name);
    entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0));
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      const key = path.relative(this.root, file).split(path.sep).join('/');
      if (entry.isDirectory()) {
        if (key === INCOMING) continue;
        // Every key inside starts with `key/`: all of them sort before a `startAfter` past that prefix.
        if (startAfter !== undefined && startAfter >= `${key}/` && !startAfter.startsWith(`${key}/`)) continue;
        yield* this.walk(file, startAfter);
        continue;
      }
      if (!entry.isFile() || !SAFE_KEY.test(key) || (startAfter !== undefined && key <= startAfter)) continue;
      const stats = await stat(file).catch(() => undefined);
      if (stats !== undefined) yield { key, lastModified: stats.mtime };
    }
  }

  async removeAbandonedTemporaries(olderThan: Date): Promise<number> {
    const folder = path.join(this.root, INCOMING);
    const names = await readdir(folder).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    let removed = 0;
    for (const name of names) {
      const file = path.join(folder, name);
      const stats = await stat(file).catch(() => undefined);
      // A write still streaming touches its file all the time; one left alone was abandoned.
      if (stats === undefined || stats.mtime >= olderThan) continue;
      await rm(file, { force: true });
      removed += 1;
    }
    return removed;
  }

  /** Drops the folders a removed object leaves empty, up to the root; one still in use refuses. */
  private async removeEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; current.startsWith(this.root + path.sep); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
    }
  }
}
