// The database a benchmark runs on: a fresh PostgreSQL database (created on the server named by
// DATABASE_URL, dropped afterwards) or, without DATABASE_URL, PGlite in a temporary folder.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { loadConfig, type Config } from '#shared/config.ts';
import { connectPglite, connectPostgres, type Database } from '#shared/db/database.ts';

export interface BenchDatabase {
  db: Database;
  /** What the figures were measured on, for the report. */
  label: string;
  /** The folder for DATA_DIR (signing keys, and PGlite's files). */
  dataDir: string;
  /** The fresh PostgreSQL database's URL, for other processes; undefined on PGlite. */
  url?: string;
  dispose(): Promise<void>;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** `poolMax` is the dev server's default pool (DATABASE_POOL_MAX), so both servers get what `npm start` gets. */
export async function openBenchDatabase(poolMax: number): Promise<BenchDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-bench-'));
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') {
    const db = await connectPglite(path.join(dataDir, 'pglite'));
    return {
      db,
      label: `PGlite in ${dataDir} (one connection)`,
      dataDir,
      dispose: async () => {
        await db.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `tessera_bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabaseName(serverUrl, name);
  const db = await connectPostgres({ url, poolMax });
  const [version] = await admin<{ server_version: string }[]>`show server_version`;
  return {
    db,
    label: `PostgreSQL ${version?.server_version ?? '?'}, database ${name} (pool of ${poolMax})`,
    dataDir,
    url,
    dispose: async () => {
      await db.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The superuser every benchmark boots with; its password only guards a throwaway database. */
export const BENCH_ADMIN = { username: 'admin', password: 'bench-admin-password' } as const;

/**
 * Rate limits on, as deployed, but with numbers no benchmark reaches: every request pays for its
 * count and sends the headers, and none is refused. (The `rate-limits` benchmark compares on to off.)
 */
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_CONSOLE_PER_MINUTE: '1000000000',
  RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '1000000000',
  RATE_LIMIT_LOGIN_PER_HOUR: '1000000000',
  RATE_LIMIT_AUTHENTICATED_PER_HOUR: '1000000000',
  RATE_LIMIT_ANONYMOUS_PER_HOUR: '1000000000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000000',
} as const;

/**
 * The configuration every benchmark boots the platform with: quiet logs, a cheap password hash, and
 * access tokens that outlive a long run (the data matrix at default settings takes 15–20 minutes on a
 * slow machine; with the default 15 minutes its last phase answered 401).
 * `RATE_LIMIT_ENABLED` is taken from the environment, so `RATE_LIMIT_ENABLED=false npm run bench`
 * measures without the counter (the explicit settings here would otherwise hide it); so is
 * `CONTEXT_REUSE_MS`, so `CONTEXT_REUSE_MS=0` measures every request as a caller's first, as many
 * callers each sending a read now and then would be served.
 */
export function benchConfig(dataDir: string): Config {
  return loadConfig({
    ...BENCH_RATE_LIMITS,
    RATE_LIMIT_ENABLED: process.env.RATE_LIMIT_ENABLED,
    CONTEXT_REUSE_MS: process.env.CONTEXT_REUSE_MS,
    DATA_DIR: dataDir,
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    PASSWORD_SCRYPT_COST: '1024',
    ACCESS_TOKEN_TTL_SECONDS: String(4 * 3600),
    LOG_LEVEL: 'WARN',
    REQUEST_LOG: 'false',
  });
}
