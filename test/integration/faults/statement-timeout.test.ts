// A statement over its budget (DATABASE_STATEMENT_TIMEOUT_MS, sent as statement_timeout when a
// connection opens): the request is answered 504, and the connection goes back to the pool clean —
// with a pool of one, the next request runs on that same connection and succeeds, and no session
// of the platform is left inside a transaction. A lock held by another session keeps the statement
// waiting past its budget. PostgreSQL only: the budget is set on connections to DATABASE_URL; the
// embedded PGlite runs without one.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '#shared/db/database.ts';
import { createStorageSite, type StorageSite } from '#test/support/storage.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe.skipIf(testDriver !== 'postgres')('a statement over its budget', () => {
  let direct: TestDatabase;
  let other: postgres.Sql;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let table: string;
  let records: string;

  beforeAll(async () => {
    direct = await createTestDatabase();
    // One connection with a budget short enough for a test; the platform's own pool as configured.
    const db = await connectPostgres({ url: direct.url!, poolMax: 1, statementTimeoutMs: 500 });
    app = await startTestApp({}, { database: { db, url: direct.url, dispose: () => db.close() } });
    other = postgres(direct.url!, { max: 1, onnotice: () => undefined });
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Slow Site');
    const json = async (method: string, path: string, body?: unknown) => {
      const answer = await app.request(method, path, { token: admin, headers: site.tenant, body });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    await json('POST', `/api/apps/${site.app}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    await json('POST', `/api/apps/${site.app}/datasources/main/datatables/`, {
      name: 'notes',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'text', type: 'string' },
        ],
        primaryKey: ['id'],
      },
    });
    await json('POST', `/api/apps/${site.app}/datatables/notes/materialize/`);
    records = `/api/apps/${site.app}/datatables/notes/data/`;
    await json('POST', records, { id: 1, text: 'first' });
    const [found] = await other<{ name: string }[]>`
      select format('%I.%I', t.table_schema, t.table_name) as name
      from information_schema.tables t join platform.sites s on s.schema_name = t.table_schema
      where s.slug = ${site.slug} and t.table_name like '%notes%'`;
    table = found!.name;
  });
  afterAll(async () => {
    await other?.end({ timeout: 5 });
    await app?.close();
    await direct?.dispose();
  });

  it('answers 504 and returns the connection to the pool clean', { timeout: 60_000 }, async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = other.begin(async (tx) => {
      await tx.unsafe(`lock table ${table} in access exclusive mode`);
      locked();
      await released;
    });
    await lockTaken;

    const slow = await app.request('PATCH', `${records}1/`, { token: admin, headers: site.tenant, body: { text: 'second' } });
    release();
    await holder;

    expect(slow.status).toBe(504);
    expect(slow.body).toMatchObject({ code: 'GATEWAY_TIMEOUT' });
    // The same single connection answers the next requests, outside any leftover transaction.
    const again = await app.request('PATCH', `${records}1/`, { token: admin, headers: site.tenant, body: { text: 'third' } });
    expect(again.status).toBe(200);
    const read = await app.request('GET', `${records}1/`, { token: admin, headers: site.tenant });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toContain('third');
    const sessions = await other<{ state: string | null }[]>`
      select state from pg_stat_activity where datname = current_database() and application_name = 'tessera'`;
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.filter((session) => session.state !== 'idle')).toEqual([]);
  });
});
