// The embedded mode's backup file: one .tar.gz holding `manifest.json`, `pglite.tar` (PGlite's own
// dump of its data folder) and `files/<path>` for every other file of the DATA_DIR (objects, hosted
// builds, the signing and secrets keys, the outbox). The keys make the file as secret as the data.
export const MANIFEST_ENTRY = 'manifest.json';
export const DATABASE_ENTRY = 'pglite.tar';
export const FILES_FOLDER = 'files';
export const BACKUP_FORMAT = 'tessera-embedded-backup';
export const BACKUP_VERSION = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  createdAt: string;
  files: number;
}

/** DATA_DIR entries never copied: the database (it goes as its dump), staged writes, the lock. */
export const NOT_COPIED = new Set(['pglite', '.incoming', 'server.pid']);
