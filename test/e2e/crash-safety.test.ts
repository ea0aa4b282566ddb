// Crash safety: the dev server is killed with SIGKILL in the middle of a stream of writes (record bulk
// inserts, upserts, object uploads and replacements, schema migrations, secret updates) and started
// again on the same DATA_DIR. Every write it acknowledged must be there, every write it did not may be
// there whole or not at all, and nothing is half-written: no object record without its bytes, no
// bytes without a record once the start-up sweep ran, no table between two schemas. Runs on PGlite,
// and on PostgreSQL when DATABASE_URL is set (the server then keeps only the objects on disk).
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPglite, connectPostgres, type Database } from '#shared/db/database.ts';
import { ServerClient, startServerProcess, stopServerProcess, type ServerProcess } from '#test/support/dev-server-process.ts';
import { createEmptyTestDatabase, type TestDatabase } from '#test/support/test-database.ts';

const BATCH = 20;
const UPSERT_KEYS = 4;
const PATHS_PER_WRITER = 6;
const PRODUCTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'sku', type: 'string', constraints: { required: true, unique: true } },
    { name: 'price', type: 'integer' },
  ],
  primaryKey: ['id'],
};
const EVOLVING = { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] };

/** What the stream wrote: acknowledged values, and the ones in flight when the server died. */
interface Ledger {
  batches: Map<number, 'acked' | 'sent'>;
  /** Per upsert key: the last acknowledged price and every price sent after it. */
  upserts: Map<string, { acked?: number; later: number[] }>;
  /** Per object path: the digest of the last acknowledged bytes and of every upload sent after it. */
  objects: Map<string, { acked?: string; later: string[] }>;
  columns: { acked: string[]; sent: string[] };
  secret: { acked?: string; later: string[] };
  /** Answers that were neither success nor a broken connection: each one is a defect. */
  failures: string[];
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The object store's files under `root`, as storage keys. None when nothing was ever stored: the
 * first upload makes the folder, and on a loaded machine the kill can come before one finishes.
 */
async function storedFiles(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

describe('SIGKILL in the middle of acknowledged writes', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let client: ServerClient;
  const ledger: Ledger = {
    batches: new Map(),
    upserts: new Map(),
    objects: new Map(),
    columns: { acked: [], sent: [] },
    secret: { later: [] },
    failures: [],
  };
  const DATA = '/api/apps/crash/datatables/products/data/';
  const EVOLVE = '/api/apps/crash/datatables/evolving/';
  let objects: string;
  const serverOptions = () => ({
    dataDir,
    databaseUrl: database?.url,
    // The migration answers 200 within the request, so an acknowledged one is a finished one.
    env: { SCHEMA_MIGRATION_WAIT_MS: '20000', MAINTENANCE_GRACE_SECONDS: '0' },
  });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-crash-'));
    if (process.env.DATABASE_URL) database = await createEmptyTestDatabase();
    server = await startServerProcess(serverOptions());
    client = new ServerClient(server.url);
    await client.signIn();
    const org = await client.expect(201, 'POST', '/api/cloud/organizations/', { name: 'Crash org' });
    const site = await client.expect(201, 'POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { name: 'Crash site' });
    client.tenant = { 'x-tenant': site.body.slug };
    await client.expect(201, 'POST', '/api/apps/', { name: 'Crash' });
    await client.expect(201, 'POST', '/api/apps/crash/datasources/', { name: 'Main', provider_type: 'flat_table' });
    for (const [name, json_schema] of [
      ['products', PRODUCTS],
      ['evolving', EVOLVING],
    ] as const) {
      await client.expect(201, 'POST', '/api/apps/crash/datasources/main/datatables/', { name, json_schema });
      await client.expect(200, 'POST', `/api/apps/crash/datatables/${name}/materialize/`);
    }
    const bucket = await client.expect(201, 'POST', '/api/apps/crash/storage/buckets/', { name: 'Files', app_category: 'attachments' });
    objects = `/api/apps/crash/storage/buckets/${bucket.body.slug}/objects/`;
    await client.expect(201, 'POST', '/api/secrets/', { key: 'API_KEY', value: 'v-initial' });
    ledger.secret.acked = 'v-initial';
  }, 300_000);

  afterAll(async () => {
    if (server !== undefined) await stopServerProcess(server, 'SIGKILL');
    await database?.dispose();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Runs one write; true when acknowledged, false when the connection broke (the server died). */
  async function attempt(expected: number, method: string, route: string, body: unknown): Promise<boolean> {
    let status: number;
    let answer: unknown;
    try {
      ({ status, body: answer } = await client.json(method, route, body));
    } catch {
      return false;
    }
    if (status === expected) return true;
    ledger.failures.push(`${method} ${route} → ${status} ${JSON.stringify(answer).slice(0, 300)}`);
    return false;
  }

  async function recordWriter(alive: () => boolean): Promise<void> {
    for (let n = 0; alive(); n += 1) {
      ledger.batches.set(n, 'sent');
      const rows = Array.from({ length: BATCH }, (_, i) => ({ id: n * BATCH + i + 1, sku: `b${n}-${i}`, price: i }));
      if (!(await attempt(201, 'POST', DATA, rows))) return;
      ledger.batches.set(n, 'acked');
      const key = `u${n % UPSERT_KEYS}`;
      const entry = ledger.upserts.get(key) ?? { later: [] };
      ledger.upserts.set(key, entry);
      entry.later.push(n);
      const upserted = await client
        .json('POST', `${DATA}upsert/?unique_fields=sku`, { id: 1_000_000 + (n % UPSERT_KEYS), sku: key, price: n })
        .catch(() => undefined);
      if (upserted === undefined) return;
      if (upserted.status !== 200 && upserted.status !== 201) {
        ledger.failures.push(`upsert → ${upserted.status} ${JSON.stringify(upserted.body)}`);
        return;
      }
      ledger.upserts.set(key, { acked: n, later: [] });
    }
  }

  async function objectWriter(writer: number, alive: () => boolean): Promise<void> {
    for (let n = 0; alive(); n += 1) {
      const objectPath = `w${writer}/f${n % PATHS_PER_WRITER}.bin`;
      const bytes = randomBytes(randomInt(1024, 96 * 1024));
      const entry = ledger.objects.get(objectPath) ?? { later: [] };
      ledger.objects.set(objectPath, entry);
      entry.later.push(sha(bytes));
      const expected = n < PATHS_PER_WRITER ? 201 : 200;
      if (!(await attempt(expected, 'PUT', `${objects}${objectPath}`, bytes))) return;
      ledger.objects.set(objectPath, { acked: sha(bytes), later: [] });
    }
  }

  async function schemaWriter(alive: () => boolean): Promise<void> {
    const fields: unknown[] = [...EVOLVING.fields];
    for (let n = 0; alive(); n += 1) {
      fields.push({ name: `c${n}`, type: 'string' });
      ledger.columns.sent.push(`c${n}`);
      if (!(await attempt(200, 'PATCH', EVOLVE, { json_schema: { ...EVOLVING, fields } }))) return;
      ledger.columns.acked.push(`c${n}`);
    }
  }

  async function secretWriter(alive: () => boolean): Promise<void> {
    for (let n = 0; alive(); n += 1) {
      ledger.secret.later.push(`v${n}`);
      if (!(await attempt(200, 'PUT', '/api/secrets/API_KEY/', { value: `v${n}` }))) return;
      ledger.secret = { acked: `v${n}`, later: [] };
    }
  }

  it('keeps every acknowledged write and no half-written one', async () => {
    // Act: the stream, and SIGKILL somewhere in its third second.
    let killed = false;
    const alive = () => !killed;
    const writers = Promise.all([
      recordWriter(alive),
      objectWriter(1, alive),
      objectWriter(2, alive),
      schemaWriter(alive),
      secretWriter(alive),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 2000 + randomInt(1000)));
    await stopServerProcess(server!, 'SIGKILL');
    killed = true;
    await writers;
    expect(ledger.failures).toEqual([]);
    server = await startServerProcess(serverOptions());
    client = new ServerClient(server.url).withTenant(client.tenant);
    await client.signIn();

    // Assess: every batch whole or absent, acknowledged ones whole.
    const skus = new Set<string>();
    for (let page = 1; ; page += 1) {
      const answer = await client.expect(200, 'GET', `${DATA}?page_size=1000&page=${page}&_sort=id`);
      for (const row of answer.body.data as Array<{ sku: string; price: number }>) skus.add(row.sku);
      if (answer.body.data.length < 1000) break;
    }
    expect(ledger.batches.size).toBeGreaterThan(1);
    for (const [n, state] of ledger.batches) {
      const present = Array.from({ length: BATCH }, (_, i) => skus.has(`b${n}-${i}`)).filter(Boolean).length;
      expect([state === 'acked' ? BATCH : 0, BATCH]).toContain(present);
    }
    for (const [key, entry] of ledger.upserts) {
      const found = await client.expect(200, 'GET', `${DATA}?sku=${key}`);
      const allowed = [...(entry.acked === undefined ? [] : [entry.acked]), ...entry.later];
      if (entry.acked === undefined && found.body.data.length === 0) continue;
      expect(allowed).toContain(found.body.data[0].price);
    }
    // Every acknowledged object has its bytes (or the bytes of a later upload, whole).
    expect(ledger.objects.size).toBeGreaterThan(0);
    for (const [objectPath, entry] of ledger.objects) {
      const answer = await client.bytes(`${objects}${objectPath}`);
      if (entry.acked === undefined && answer.status === 404) continue;
      expect(answer.status).toBe(200);
      expect([entry.acked, ...entry.later]).toContain(sha(answer.bytes));
    }
    // The migrated table: every acknowledged column, and the stored schema the table's own.
    const table = await client.expect(200, 'GET', EVOLVE);
    const declared = (table.body.json_schema.fields as Array<{ name: string }>).map((field) => field.name).slice(1);
    expect(declared.slice(0, ledger.columns.acked.length)).toEqual(ledger.columns.acked);
    expect(ledger.columns.sent.slice(0, declared.length)).toEqual(declared);
    await client.expect(200, 'GET', `${EVOLVE}data/`);
    const secret = await client.expect(200, 'GET', '/api/secrets/API_KEY/');
    expect([ledger.secret.acked, ...ledger.secret.later]).toContain(secret.body.value);

    // Assess, below the API once the server has stopped: rows and bytes agree, the table has the
    // stored schema's columns.
    await stopServerProcess(server!, 'SIGTERM');
    server = undefined;
    const db = await openServerDatabase();
    try {
      const [site] = await db.rows<{ schema_name: string }>(
        sql`select schema_name from platform.sites where slug = ${client.tenant['x-tenant']}`,
      );
      const schema = site!.schema_name;
      const keys = await db.rows<{ storage_key: string }>(sql.raw(`select storage_key from "${schema}".objects`));
      const queued = await db.rows<{ storage_key: string }>(sql.raw(`select storage_key from "${schema}".object_discards`));
      const columns = await db.rows<{ column_name: string }>(
        sql`select column_name from information_schema.columns where table_schema = ${schema} and table_name = ${table.body.physical_table_name} order by ordinal_position`,
      );
      const files = await storedFiles(path.join(dataDir, 'objects'));
      expect(files.filter((file) => file.startsWith('.incoming/'))).toEqual([]);
      expect(queued).toEqual([]);
      expect(files.sort()).toEqual(keys.map((row) => row.storage_key).sort());
      expect(columns.map((column) => column.column_name)).toEqual(['id', ...declared]);
    } finally {
      await db.close();
    }
  }, 300_000);

  function openServerDatabase(): Promise<Database> {
    return database?.url === undefined ? connectPglite(path.join(dataDir, 'pglite')) : connectPostgres({ url: database.url, poolMax: 1 });
  }
});
