// A database of its own for each test file: a fresh PostgreSQL database on the server named by
// DATABASE_URL, or an in-memory PGlite when it is not set. Both are copies of templates made once per
// run (database-templates.ts), empty or with the platform migrations applied.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { connectPglite, connectPostgres, type Database } from '#shared/db/database.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';
import { type DatabaseTemplates, withDatabaseName } from './database-templates.ts';

export interface TestDatabase {
  db: Database;
  /** The URL of the fresh PostgreSQL database; undefined on PGlite. */
  url?: string;
  dispose(): Promise<void>;
}

export const testDriver: 'postgres' | 'pglite' = process.env.DATABASE_URL ? 'postgres' : 'pglite';

type TemplateKind = 'empty' | 'migrated';

/** The run's templates under vitest; none elsewhere (a benchmark makes its databases anew). */
async function templates(): Promise<DatabaseTemplates> {
  if (process.env.VITEST === undefined) return {};
  const { inject } = await import('vitest');
  return inject('databaseTemplates') ?? {};
}

async function copyOf(kind: TemplateKind): Promise<TestDatabase> {
  const { pglite, postgres: postgresTemplates } = await templates();
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined) {
    const dump = pglite === undefined ? undefined : new Blob([await readFile(pglite[kind])]);
    const db = await connectPglite('memory://', dump);
    return { db, dispose: () => db.close() };
  }
  const name = `tessera_t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  const template = postgresTemplates === undefined ? '' : ` template "${postgresTemplates[kind]}"`;
  await admin.unsafe(`create database "${name}"${template}`);
  const url = withDatabaseName(serverUrl, name);
  const db = await connectPostgres({ url, poolMax: 4 });
  return {
    db,
    url,
    dispose: async () => {
      await db.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Creates an empty database (no migrations applied). */
export function createEmptyTestDatabase(): Promise<TestDatabase> {
  return copyOf('empty');
}

/** Creates a database with the platform schema migrated (a no-op on the migrated template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const test = await copyOf('migrated');
  await prepareDatabase(test.db);
  return test;
}
