// Unpacks an uploaded archive into the builds store under one build's prefix, while it streams in.
// A refusal at any point (a bad entry, a broken limit, an unreadable archive) removes every file the
// build had stored so far, so nothing of a refused archive stays behind.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ArchiveLimits } from '#shared/config.ts';
import { buildFileHeaders } from '#shared/hosting/build-file-headers.ts';
import { buildFileKey } from '#shared/hosting/build-keys.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import { ArchiveGuard } from './archive-guard.ts';
import type { ArchiveFileSink } from './archive-file.ts';
import { refusedArchive } from './entry-paths.ts';
import { readTar } from './tar-reader.ts';
import { readZip } from './zip-reader.ts';

export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz';

export interface ExtractedBuild {
  /** Paths inside the build (`assets/app.js`), in the order they were stored. */
  files: string[];
  totalBytes: number;
  /** Store keys of those files, for a later delete. */
  keys: string[];
}

/** The format a file name announces; anything else is refused before a byte is read. */
export function archiveFormatOf(filename: string | undefined): ArchiveFormat {
  const name = (filename ?? '').toLowerCase();
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar')) return 'tar';
  throw refusedArchive('Send the build as a .zip, .tar, .tar.gz or .tgz archive.');
}

/** A zip is read from its end, so it lands in a temporary file first (its size limit checked on the way). */
async function readZipUpload(source: Readable, guard: ArchiveGuard, sink: ArchiveFileSink): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'tessera-build-'));
  try {
    const file = path.join(folder, 'build.zip');
    await pipeline(source, guard.packedMeter(), createWriteStream(file));
    guard.setPackedBytes((await stat(file)).size);
    await readZip(file, guard, sink);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export async function extractBuild(
  store: ObjectStore,
  buildPrefix: string,
  format: ArchiveFormat,
  source: Readable,
  limits: ArchiveLimits,
): Promise<ExtractedBuild> {
  const guard = new ArchiveGuard(limits);
  const stored = new Map<string, { key: string; size: number }>();
  const sink: ArchiveFileSink = async ({ segments, body }) => {
    const key = buildFileKey(buildPrefix, segments);
    const filePath = segments.join('/');
    // Recorded before the write: a write that fails half-way may have left its key behind.
    stored.set(filePath, { key, size: 0 });
    // Deployed, CloudFront answers with the headers stored on the object: the dev server's own.
    const info = await store.put(key, body, buildFileHeaders(segments[segments.length - 1]!));
    stored.set(filePath, { key, size: info.size });
  };
  try {
    if (format === 'zip') await readZipUpload(source, guard, sink);
    else await readTar(source, format === 'tar.gz', guard, sink);
    if (!stored.has('index.html')) throw refusedArchive('The archive has no index.html at its root.');
  } catch (error) {
    source.destroy();
    await store.deleteMany([...stored.values()].map((file) => file.key));
    throw error;
  }
  const files = [...stored.keys()];
  return {
    files,
    totalBytes: [...stored.values()].reduce((sum, file) => sum + file.size, 0),
    keys: [...stored.values()].map((file) => file.key),
  };
}
