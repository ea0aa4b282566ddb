// `npm run backup [-- <file>]`: writes the embedded mode's DATA_DIR to one .tar.gz (backup-format.ts)
// while the server is stopped. PGlite is one process, so a copy under a running server could mix
// two moments; stopped, PGlite opens the folder (finishing a crashed server's recovery), dumps it,
// and the objects and builds on disk cannot change underneath. With DATABASE_URL the database is
// PostgreSQL's to back up (pg_dump, or Aurora's backups when deployed), so this refuses.
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { loadConfig } from '#shared/config.ts';
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

/** Adds one entry and waits until tar-stream has taken its bytes. */
function addEntry(pack: tar.Pack, name: string, body: Buffer | string, mode = 0o600): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, mode }, body, (error) => (error ? reject(error) : resolve())));
}

async function addFile(pack: tar.Pack, name: string, file: string, size: number): Promise<void> {
  const sink = pack.entry({ name, size, mode: 0o600 });
  await pipeline(createReadStream(file), sink);
}

/** Every regular file of the DATA_DIR except NOT_COPIED, relative, `/`-separated. */
async function dataFiles(dataDir: string, skip: string): Promise<string[]> {
  const entries = await readdir(dataDir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dataDir, full).split(path.sep);
    if (NOT_COPIED.has(relative[0]!) || full === skip) continue;
    if (entry.isSymbolicLink()) throw new Error(`${full} is a symbolic link; a backup holds files only.`);
    if (entry.isFile()) files.push(relative.join('/'));
  }
  return files.sort();
}

async function writeBackup(dataDir: string, output: string): Promise<BackupManifest> {
  const live = await liveServerOf(dataDir);
  if (live !== undefined) throw new Error(`A server (process ${live}) is using ${dataDir}; stop it first.`);
  const { PGlite } = await import('@electric-sql/pglite');
  const database = await PGlite.create(path.join(dataDir, 'pglite'));
  let dump: Buffer;
  try {
    dump = Buffer.from(await (await database.dumpDataDir('none')).arrayBuffer());
  } finally {
    await database.close();
  }
  const files = await dataFiles(dataDir, path.resolve(output));
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: new Date().toISOString(),
    files: files.length,
  };
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(output, { mode: 0o600 }));
  await addEntry(pack, MANIFEST_ENTRY, JSON.stringify(manifest, null, 2));
  await addEntry(pack, DATABASE_ENTRY, dump);
  for (const file of files) {
    const full = path.join(dataDir, ...file.split('/'));
    await addFile(pack, `${FILES_FOLDER}/${file}`, full, (await stat(full)).size);
  }
  pack.finalize();
  await written;
  return manifest;
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.database.url !== undefined) {
    throw new Error('DATABASE_URL is set: back up PostgreSQL with pg_dump (or its own backups); this backs up the embedded mode.');
  }
  const output = process.argv[2] ?? `tessera-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`;
  const manifest = await writeBackup(config.dataDir, output);
  console.log(`Backed up ${config.dataDir} (database and ${manifest.files} files) to ${output}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
