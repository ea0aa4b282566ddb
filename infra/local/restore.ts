// `npm run restore -- <file> [--force]`: brings a DATA_DIR back to a backup of `npm run backup`.
// The archive is read with the hosting group's extraction rules (regular files and folders only, no
// absolute paths, no `..`, no links), and so is the database dump inside it, before PGlite loads it.
// Everything lands in a staging folder beside DATA_DIR that replaces it only once complete, so a
// refused or broken archive leaves DATA_DIR as it was. A non-empty DATA_DIR is refused unless
// --force, and never replaced under a running server.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { ArchiveGuard } from '#functions/hosting/archives/archive-guard.ts';
import type { ArchiveFile } from '#functions/hosting/archives/archive-file.ts';
import { buildPathOf } from '#functions/hosting/archives/entry-paths.ts';
import { readTar } from '#functions/hosting/archives/tar-reader.ts';
import type { ArchiveLimits } from '#shared/config.ts';
import { loadConfig } from '#shared/config.ts';
import { AppError } from '#shared/errors.ts';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  DATABASE_ENTRY,
  FILES_FOLDER,
  MANIFEST_ENTRY,
  NOT_COPIED,
  type BackupManifest,
} from './backup-format.ts';
import { liveServerOf } from './data-dir-lock.ts';

/**
 * A backup is the operator's own file, so sizes are not what is guarded (objects may be gigabytes);
 * the entry rules are, and the count keeps a hostile file from exhausting the disk with names.
 */
const BACKUP_LIMITS: ArchiveLimits = {
  archiveBytes: Number.MAX_SAFE_INTEGER,
  entries: 10_000_000,
  fileBytes: Number.MAX_SAFE_INTEGER,
  totalBytes: Number.MAX_SAFE_INTEGER,
  compressionRatio: Number.MAX_SAFE_INTEGER,
};

class RestoreRefused extends Error {}

async function isEmptyFolder(folder: string): Promise<boolean> {
  const entries = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.length === 0;
}

async function bufferOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Extracts the archive's files into `staging`; answers its manifest and the database dump. */
async function extract(file: string, staging: string): Promise<{ manifest: BackupManifest; dump: Buffer }> {
  let manifest: BackupManifest | undefined;
  let dump: Buffer | undefined;
  const sink = async ({ segments, body }: ArchiveFile): Promise<void> => {
    const name = segments.join('/');
    if (name === MANIFEST_ENTRY) {
      manifest = JSON.parse((await bufferOf(body)).toString('utf8')) as BackupManifest;
      if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION)
        throw new RestoreRefused('This is not a Tessera backup of a version this can restore.');
    } else if (name === DATABASE_ENTRY) {
      dump = await bufferOf(body);
    } else if (segments[0] === FILES_FOLDER && segments.length > 1 && !NOT_COPIED.has(segments[1]!)) {
      const target = path.join(staging, ...segments.slice(1));
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(body, createWriteStream(target, { mode: 0o600 }));
    } else {
      body.destroy();
      throw new RestoreRefused(`The backup has an unexpected entry ${JSON.stringify(name)}.`);
    }
  };
  await readTar(createReadStream(file), true, new ArchiveGuard(BACKUP_LIMITS), sink);
  if (manifest === undefined || dump === undefined) throw new RestoreRefused('The backup has no manifest or no database.');
  await checkDatabaseDump(dump);
  return { manifest, dump };
}

/**
 * The dump is a tar PGlite unpacks itself, its names rooted at `/` (the data folder): each must be
 * a file or folder whose name, without that `/`, passes the archive path rule.
 */
async function checkDatabaseDump(dump: Buffer): Promise<void> {
  const entries = tar.extract();
  Readable.from([dump]).pipe(entries);
  for await (const entry of entries) {
    const { name, type } = entry.header;
    entry.resume();
    if (type !== 'file' && type !== 'directory') throw new RestoreRefused(`The database dump has ${JSON.stringify(name)} of type ${type}.`);
    if (!name.startsWith('/')) throw new RestoreRefused(`The database dump has ${JSON.stringify(name)} outside its folder.`);
    buildPathOf(type === 'directory' ? `${name.slice(1)}/` : name.slice(1));
  }
}

async function restore(file: string, dataDir: string, force: boolean): Promise<BackupManifest> {
  const target = path.resolve(dataDir);
  if (!(await isEmptyFolder(target))) {
    if (!force) throw new RestoreRefused(`${target} is not empty; restore into a fresh DATA_DIR, or pass --force to replace it.`);
    const live = await liveServerOf(target);
    if (live !== undefined) throw new RestoreRefused(`A server (process ${live}) is using ${target}; stop it first.`);
  }
  const staging = `${target}.restoring-${randomUUID()}`;
  try {
    await mkdir(staging, { recursive: true });
    const { manifest, dump } = await extract(file, staging);
    const { PGlite } = await import('@electric-sql/pglite');
    const database = await PGlite.create(path.join(staging, 'pglite'), { loadDataDir: new Blob([dump]) });
    await database.query('select 1');
    await database.close();
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
    return manifest;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const files = args.filter((arg) => arg !== '--force');
  if (files.length !== 1) throw new RestoreRefused('Usage: npm run restore -- <backup file> [--force]');
  const config = loadConfig();
  if (config.database.url !== undefined) throw new RestoreRefused('DATABASE_URL is set: this restores the embedded mode only.');
  const manifest = await restore(files[0]!, config.dataDir, force);
  console.log(`Restored ${config.dataDir} from ${files[0]} (made ${manifest.createdAt}, database and ${manifest.files} files)`);
}

main().catch((error: unknown) => {
  // Refusals and archive-rule violations are the operator's to read; anything else keeps its stack.
  console.error(error instanceof RestoreRefused || error instanceof AppError ? `Restore refused: ${error.message}` : error);
  process.exit(1);
});
