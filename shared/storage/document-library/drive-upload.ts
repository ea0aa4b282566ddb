// Uploads bytes to a drive item: one `PUT .../content` for small files, an upload session in
// 320 KiB-aligned chunks for larger ones (Graph's advice past 4 MB). The shared byte rules (the
// bucket's limit, the declared length) apply while reading, so a refused upload stops early and an
// upload session is cancelled before its last chunk commits the file. A session needs the total size up
// front: with no Content-Length the bytes are spooled to a temporary file first, never held in memory.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { BadRequestError } from '#shared/errors.ts';
import { ByteLimit, checkKnownSize } from '../byte-limit.ts';
import type { PutOptions } from '../object-store.ts';
import type { Drive, DriveItem } from './drive.ts';

export interface UploadLimits {
  /** Largest body sent in one `PUT .../content`. */
  simpleUploadMaxBytes: number;
  /** Bytes per upload-session request; a multiple of 320 KiB as Graph requires. */
  chunkBytes: number;
}

export const CHUNK_UNIT = 320 * 1024;

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { simpleUploadMaxBytes: 4 * 1024 * 1024, chunkBytes: 10 * CHUNK_UNIT };

/** Reads a byte stream in pieces of a chosen size. */
class ChunkReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer | string>) {}

  /** Up to `size` bytes: fewer only at the end of the stream, none once it is exhausted. */
  async read(size: number): Promise<Buffer> {
    while (this.pendingBytes < size && !this.ended) {
      const next = await this.source.next();
      if (next.done === true) {
        this.ended = true;
        break;
      }
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
    }
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const piece = all.subarray(0, size);
    const rest = all.subarray(size);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
    return piece;
  }

  /** Puts bytes back in front, as if they had not been read. */
  unread(bytes: Buffer): void {
    this.pending.unshift(bytes);
    this.pendingBytes += bytes.length;
  }
}

/** The body as chunks, through the shared byte rules: the bucket's limit and the declared length. */
function readerOf(body: Readable | Buffer, options: Pick<PutOptions, 'maxBytes' | 'contentLength'>): ChunkReader {
  const limit = new ByteLimit(options);
  const limited = pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, limit, () => undefined);
  return new ChunkReader(limited[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>);
}

export async function uploadToDrive(
  drive: Drive,
  key: string,
  body: Readable | Buffer,
  options: PutOptions,
  limits: UploadLimits,
): Promise<DriveItem> {
  const itemPath = drive.itemPath(key);
  if (Buffer.isBuffer(body)) checkKnownSize(body.length, options);
  const reader = readerOf(body, options);
  const head = await reader.read(limits.simpleUploadMaxBytes + 1);
  if (head.length <= limits.simpleUploadMaxBytes) {
    return drive.graph.json<DriveItem>('PUT', `${itemPath}:/content`, {
      bytes: head,
      headers: { 'content-type': options.contentType },
    });
  }
  reader.unread(head);
  if (options.contentLength !== undefined) return uploadInSession(drive, itemPath, reader, options.contentLength, limits.chunkBytes);
  const spooled = path.join(tmpdir(), `tessera-upload-${randomUUID()}`);
  try {
    await pipelineAsync(readBytes(reader), createWriteStream(spooled));
    const { size } = await stat(spooled);
    return await uploadInSession(drive, itemPath, readerOf(createReadStream(spooled), {}), size, limits.chunkBytes);
  } finally {
    await rm(spooled, { force: true });
  }
}

async function* readBytes(reader: ChunkReader): AsyncGenerator<Buffer> {
  for (;;) {
    const piece = await reader.read(CHUNK_UNIT);
    if (piece.length === 0) return;
    yield piece;
  }
}

async function uploadInSession(drive: Drive, itemPath: string, reader: ChunkReader, total: number, chunkBytes: number): Promise<DriveItem> {
  const session = await drive.graph.json<{ uploadUrl: string }>('POST', `${itemPath}:/createUploadSession`, {
    json: { item: { '@microsoft.graph.conflictBehavior': 'replace' } },
  });
  try {
    let offset = 0;
    for (;;) {
      const wanted = Math.min(chunkBytes, total - offset);
      const chunk = await reader.read(wanted);
      const last = offset + chunk.length === total;
      // The byte rules refuse a body longer or shorter than declared while reading; reading past the
      // last chunk before sending it makes them speak before the file is committed.
      if (chunk.length < wanted || (last && (await reader.read(1)).length > 0)) {
        throw new BadRequestError(`The body does not have the ${total} bytes it declared`);
      }
      // The upload URL is pre-authenticated: no token goes with it.
      const answer = await drive.graph.call('PUT', session.uploadUrl, {
        anonymous: true,
        untimed: true,
        bytes: chunk,
        headers: { 'content-range': `bytes ${offset}-${offset + chunk.length - 1}/${total}` },
      });
      offset += chunk.length;
      if (last && (answer.status === 200 || answer.status === 201)) return (await answer.json()) as DriveItem;
      if (last || answer.status !== 202) await drive.graph.failure(answer, 'PUT upload session');
      await answer.body?.cancel();
    }
  } catch (error) {
    // Drop the half-filled session; the error that got us here is the one worth reporting.
    await drive.graph.call('DELETE', session.uploadUrl, { anonymous: true }).catch(() => undefined);
    throw error;
  }
}
