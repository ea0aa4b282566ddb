// Picks the database from configuration: DATABASE_URL, the deployed Aurora secret behind RDS Proxy,
// or the embedded PGlite under DATA_DIR; then brings the platform and tenant schemas up to date.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Config } from '#shared/config.ts';
import { readSecret } from '#shared/secrets/secret-store.ts';
import { connectPglite, connectPostgres, type Database } from './database.ts';
import { migrateAllTenantSchemas } from './tenant-schemas.ts';

/** Beside this module in the source tree; beside the bundle once packaged for Lambda. */
export const PLATFORM_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

interface DatabaseSecret {
  username: string;
  password: string;
  host: string;
  port: number;
  dbname?: string;
}

async function urlFromSecret(config: Config['database']): Promise<string> {
  const secret = JSON.parse(await readSecret(config.secretArn!)) as DatabaseSecret;
  const host = config.host ?? secret.host;
  const name = config.name ?? secret.dbname ?? 'postgres';
  const user = encodeURIComponent(secret.username);
  const password = encodeURIComponent(secret.password);
  return `postgres://${user}:${password}@${host}:${secret.port}/${name}?sslmode=require`;
}

export async function openDatabase(config: Config): Promise<Database> {
  if (config.database.url !== undefined) {
    return connectPostgres({
      url: config.database.url,
      poolMax: config.database.poolMax,
      statementTimeoutMs: config.database.statementTimeoutMs,
    });
  }
  if (config.database.secretArn !== undefined) {
    // RDS Proxy pins sessions that use named prepared statements, so they are off there.
    return connectPostgres({
      url: await urlFromSecret(config.database),
      poolMax: config.database.poolMax,
      prepare: false,
    });
  }
  return connectPglite(path.join(config.dataDir, 'pglite'));
}

/** Applies pending platform migrations, then pending tenant migrations to every site schema. */
export async function prepareDatabase(db: Database, migrationsDir = PLATFORM_MIGRATIONS_DIR): Promise<void> {
  await db.applyMigrations(migrationsDir);
  await migrateAllTenantSchemas(db);
}
