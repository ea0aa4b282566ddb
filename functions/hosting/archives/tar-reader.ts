// Reads a .tar, .tar.gz or .tgz build with tar-stream as it streams in (gunzipped by node's zlib):
// only regular files and folders are accepted; links, devices and FIFOs refuse the archive.
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { AppError } from '#shared/errors.ts';
import type { ArchiveGuard } from './archive-guard.ts';
import { meteredBody, type ArchiveFileSink } from './archive-file.ts';
import { buildPathOf, refusedArchive } from './entry-paths.ts';

const TYPE_NAMES: Record<string, string> = {
  link: 'a hard link',
  symlink: 'a symbolic link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
};

function asRefusal(error: unknown, gzipped: boolean): unknown {
  if (error instanceof AppError) return error;
  const kind = gzipped ? '.tar.gz' : '.tar';
  return refusedArchive(`The ${kind} archive cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
}

export async function readTar(source: Readable, gzipped: boolean, guard: ArchiveGuard, sink: ArchiveFileSink): Promise<void> {
  const extract = tar.extract();
  let packed: Readable = source.pipe(guard.packedMeter());
  source.on('error', (error) => packed.destroy(error));
  if (gzipped) {
    const metered = packed;
    packed = metered.pipe(createGunzip());
    metered.on('error', (error) => packed.destroy(error));
  }
  packed.on('error', (error) => extract.destroy(error));
  packed.pipe(extract);
  try {
    for await (const entry of extract) {
      guard.countEntry();
      const { name, type } = entry.header;
      const shown = JSON.stringify(name.slice(0, 200));
      if (type === 'file' || type === 'contiguous-file') {
        const segments = buildPathOf(name);
        if (segments === undefined) throw refusedArchive(`The entry ${shown} is a file named like a folder.`);
        await sink({ segments, body: meteredBody(Readable.from(entry), guard.fileMeter(name)) });
      } else if (type === 'directory') {
        buildPathOf(name.endsWith('/') ? name : `${name}/`);
        entry.resume();
      } else if (String(type) === 'pax-global-header') {
        entry.resume();
      } else {
        throw refusedArchive(
          `The entry ${shown} is ${TYPE_NAMES[type ?? ''] ?? `of type ${String(type)}`}; only files and folders are accepted.`,
        );
      }
    }
  } catch (error) {
    source.unpipe();
    packed.destroy();
    extract.destroy();
    throw asRefusal(error, gzipped);
  }
}
