// A database of its own for each test file: a fresh PostgreSQL database on the server named by
// DATABASE_URL, or an in-memory PGlite when it is not set. Both get the platform migrations.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { connectPglite, connectPostgres, type Database } from '#shared/db/database.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';

export interface TestDatabase {
  db: Database;
  /** The URL of the fresh PostgreSQL database; undefined on PGlite. */
  url?: string;
  dispose(): Promise<void>;
}

export const testDriver: 'postgres' | 'pglite' = process.env.DATABASE_URL ? 'postgres' : 'pglite';

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Creates an empty database (no migrations applied). */
export async function createEmptyTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined) {
    const db = await connectPglite('memory://');
    return { db, dispose: () => db.close() };
  }
  const name = `tessera_t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${name}"`);
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

/** Creates a database with the platform schema migrated. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const test = await createEmptyTestDatabase();
  await prepareDatabase(test.db);
  return test;
}
