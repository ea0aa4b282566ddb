// Reads a .zip build with yauzl from the archive received whole into a temporary file (a zip's
// table of contents is at its end). Entries are read one at a time, lazily: each file entry's
// declared sizes are judged before it is unpacked, and its bytes are counted as they stream.
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AppError } from '#shared/errors.ts';
import type { ArchiveGuard } from './archive-guard.ts';
import { meteredBody, type ArchiveFileSink } from './archive-file.ts';
import { buildPathOf, refusedArchive } from './entry-paths.ts';

/** File type bits of a Unix mode, as zip tools store them in the upper half of the external attributes. */
const TYPE_MASK = 0o170000;
const REGULAR = 0o100000;
const DIRECTORY = 0o040000;
const SYMLINK = 0o120000;

function openZip(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error) reject(error);
      else resolve(zip);
    });
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(error);
      else resolve(stream);
    });
  });
}

/** yauzl's own refusals (bad names, bad sizes, not a zip) become a 400 with its reason. */
function asRefusal(error: unknown): unknown {
  if (error instanceof AppError) return error;
  return refusedArchive(`The .zip archive cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
}

function checkEntryType(entry: Entry): 'file' | 'directory' {
  const type = (entry.externalFileAttributes >>> 16) & TYPE_MASK;
  const shown = JSON.stringify(entry.fileName.slice(0, 200));
  if (type === SYMLINK) throw refusedArchive(`The entry ${shown} is a symbolic link; links are not accepted.`);
  if (type !== 0 && type !== REGULAR && type !== DIRECTORY) throw refusedArchive(`The entry ${shown} is not a regular file or folder.`);
  if (entry.isEncrypted()) throw refusedArchive(`The entry ${shown} is encrypted.`);
  return type === DIRECTORY || entry.fileName.endsWith('/') ? 'directory' : 'file';
}

export async function readZip(file: string, guard: ArchiveGuard, sink: ArchiveFileSink): Promise<void> {
  let zip: ZipFile;
  try {
    zip = await openZip(file);
  } catch (error) {
    throw asRefusal(error);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        zip.close();
        reject(asRefusal(error));
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        void (async () => {
          guard.countEntry();
          const kind = checkEntryType(entry);
          const segments = buildPathOf(entry.fileName);
          if (kind === 'directory' || segments === undefined) return;
          guard.checkDeclared(entry.fileName, entry.compressedSize, entry.uncompressedSize);
          const stream = await openEntry(zip, entry);
          await sink({ segments, body: meteredBody(stream, guard.fileMeter(entry.fileName)) });
        })().then(() => zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  } finally {
    if (zip.isOpen) zip.close();
  }
}
