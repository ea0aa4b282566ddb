// Lock and DDL timeouts of a schema migration, on PostgreSQL only: PGlite accepts lock_timeout and
// statement_timeout but does not enforce them, and has one connection, so nothing can hold a lock
// against it. A second connection holds a lock on the physical table while a PATCH migrates it: the
// transaction's DDL, and a CREATE INDEX CONCURRENTLY (run with session timeouts) whose INVALID index
// is swept afterwards.
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '#test/support/test-database.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PEOPLE = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
  ],
  primaryKey: ['id'],
};
const WITH_EMAIL = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'email', type: 'string' }] };

const WITH_NAME_INDEX = { ...PEOPLE, indexes: [{ name: 'by_name', fields: ['name'] }] };

interface Held {
  /** The lock the other connection holds through the PATCH. */
  mode: 'access share' | 'row exclusive';
  /** The schema the PATCH sends. */
  change: unknown;
  /** The table's physical columns afterwards. */
  columns: string[];
}

type Answer = { status: number; headers: Headers; body: any }; // `any`: a response body
type Operation = { status: string; error_code: string | null; error_message: string | null };

function timeoutSuite(
  title: string,
  env: Record<string, string>,
  held: Held,
  check: (answer: Answer, op: Operation) => void,
  afterwards?: (ctx: {
    call: (method: string, path: string, body?: unknown) => Promise<Answer>;
    indexes: () => Promise<string[]>;
  }) => Promise<void>,
) {
  describe.runIf(testDriver === 'postgres')(title, () => {
    let app: TestApp;
    let admin: string;
    let tenant: Record<string, string>;
    let schema: string;
    const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

    beforeAll(async () => {
      app = await startTestApp(env);
      admin = await app.adminToken();
      const site = (await createSite(app, admin, 'Timeout Site')).slug;
      tenant = { 'x-tenant': site };
      schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
        .schema_name;
      await call('POST', '/api/apps/', { name: 'TO' });
      await call('POST', '/api/apps/to/datasources/', { name: 'Main', provider_type: 'flat_table' });
      expect((await call('POST', '/api/apps/to/datasources/main/datatables/', { name: 'held', json_schema: PEOPLE })).status).toBe(201);
      expect((await call('POST', '/api/apps/to/datatables/held/materialize/')).status).toBe(200);
    });
    afterAll(async () => {
      await app.close();
    });

    it('answers as DECISIONS says, records the operation FAILED, and leaves the table as it was', async () => {
      const holder = postgres(app.database.url!, { max: 1, onnotice: () => undefined });
      const before = await call('GET', '/api/apps/to/datatables/held/');
      let answer: Awaited<ReturnType<typeof call>>;
      try {
        // A reader (or writer) in a long transaction: ALTER TABLE needs ACCESS EXCLUSIVE, and CREATE
        // INDEX CONCURRENTLY waits for every transaction that writes the table.
        await holder.begin(async (tx) => {
          await tx.unsafe(`lock table "${schema}".to_held in ${held.mode} mode`);
          answer = await call('PATCH', '/api/apps/to/datatables/held/', { json_schema: held.change });
        });
      } finally {
        await holder.end({ timeout: 5 });
      }
      const [listed] = (await call('GET', '/api/apps/to/datatables/held/operation-history/?limit=1')).body.results;
      const [op] = await app.runtime.db.rows<{ status: string; error_code: string | null; error_message: string | null }>(
        sql.raw(`select status, error_code, error_message from "${schema}".schema_operations where revision_id = '${listed.revision_id}'`),
      );
      check(answer!, op!);
      const after = await call('GET', '/api/apps/to/datatables/held/');
      expect(after.body.schema_hash).toBe(before.body.schema_hash);
      const columns = await app.runtime.db.rows<{ column_name: string }>(sql`select column_name from information_schema.columns
        where table_schema = ${schema} and table_name = 'to_held' order by ordinal_position`);
      expect(columns.map((c) => c.column_name)).toEqual(held.columns);
      const indexes = async () =>
        (
          await app.runtime.db.rows<{ relname: string; indisvalid: boolean }>(sql`select c.relname, i.indisvalid from pg_index i
          join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
          where n.nspname = ${schema} and t.relname = 'to_held' order by c.relname`)
        ).map((i) => `${i.relname}${i.indisvalid ? '' : ' INVALID'}`);
      await afterwards?.({ call, indexes });
    });
  });
}

const ADD_EMAIL: Held = { mode: 'access share', change: WITH_EMAIL, columns: ['id', 'name'] };

timeoutSuite(
  'a migration whose table lock cannot be taken within lock_timeout',
  { SCHEMA_LOCK_TIMEOUT_MS: '200' },
  ADD_EMAIL,
  (answer, op) => {
    // Retried by the state machine (1 + 2 + 4 s), then 409 with Retry-After.
    expect(answer.status).toBe(409);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(op).toMatchObject({ status: 'FAILED', error_code: 'LockTimeoutError' });
  },
);

timeoutSuite(
  'a migration whose DDL statement runs past its statement_timeout',
  { SCHEMA_LOCK_TIMEOUT_MS: '10000', SCHEMA_DDL_TIMEOUT_MS: '300' },
  ADD_EMAIL,
  (answer, op) => {
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('BUSINESS_LOGIC_ERROR');
    expect(answer.body.message).toMatch(/longer than its time limit/);
    expect(op).toMatchObject({ status: 'FAILED', error_code: 'StatementTimeoutError' });
    expect(op.error_message).toMatch(/statement timeout|time limit/);
  },
);

timeoutSuite(
  'a CONCURRENTLY index build that waits past lock_timeout for a writer',
  { SCHEMA_LOCK_TIMEOUT_MS: '200' },
  { mode: 'row exclusive', change: WITH_NAME_INDEX, columns: ['id', 'name'] },
  (answer, op) => {
    expect(answer.status).toBe(409);
    expect(op).toMatchObject({ status: 'FAILED', error_code: 'LockTimeoutError' });
    expect(op.error_message).toMatch(/could not be dropped yet .* the sweep drops it/);
  },
  async ({ call, indexes }) => {
    // The build's INVALID index could not be dropped while the writer held on; once it is gone, the
    // table's next migration sweeps it.
    expect(await indexes()).toEqual(['to_held_by_name INVALID', 'to_held_pkey']);
    expect((await call('PATCH', '/api/apps/to/datatables/held/', { json_schema: WITH_EMAIL })).status).toBe(200);
    expect(await indexes()).toEqual(['to_held_pkey']);
  },
);

describe.runIf(testDriver === 'postgres')('a record write queued behind a rename', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = (await createSite(app, admin, 'Queue Site')).slug;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    await call('POST', '/api/apps/', { name: 'Q' });
    await call('POST', '/api/apps/q/datasources/', { name: 'Main', provider_type: 'flat_table' });
    expect((await call('POST', '/api/apps/q/datasources/main/datatables/', { name: 'queued', json_schema: PEOPLE })).status).toBe(201);
    expect((await call('POST', '/api/apps/q/datatables/queued/materialize/')).status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  /** Waits until some backend waits for `mode` on the table. */
  const waitingFor = async (mode: string) => {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const [row] = await app.runtime.db.rows<{
        n: number;
      }>(sql`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
        join pg_namespace s on s.oid = c.relnamespace where s.nspname = ${schema} and c.relname = 'q_queued' and not l.granted and l.mode = ${mode}`);
      if (row!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`nobody waited for ${mode}`);
  };

  it('is answered 409 to send again, never a 500, when the rename commits before it runs (and so is a read)', async () => {
    const holder = postgres(app.database.url!, { max: 1, onnotice: () => undefined });
    const renamed = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'full_name', type: 'string', 'x-rename-from': 'name' }] };
    let migration: Promise<Answer> | undefined;
    let write: Promise<Answer> | undefined;
    let read: Promise<Answer> | undefined;
    try {
      await holder.begin(async (tx) => {
        await tx.unsafe(`lock table "${schema}".q_queued in access share mode`);
        migration = call('PATCH', '/api/apps/q/datatables/queued/', { json_schema: renamed });
        await waitingFor('AccessExclusiveLock');
        // The write reads the table's schema now (still "name"), and its INSERT queues behind the ALTER.
        write = call('POST', '/api/apps/q/datatables/queued/data/', { id: 2, name: 'Bo' });
        await waitingFor('RowExclusiveLock');
        read = call('GET', '/api/apps/q/datatables/queued/data/');
        await waitingFor('AccessShareLock');
      });
    } finally {
      await holder.end({ timeout: 5 });
    }
    expect((await migration!).status).toBe(200);
    const answer = await write!;
    expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    expect(answer.headers.get('retry-after')).toBe('1');
    const listed = await read!;
    expect(listed.status, JSON.stringify(listed.body)).toBe(409);
    expect((await call('POST', '/api/apps/q/datatables/queued/data/', { id: 2, full_name: 'Bo' })).status).toBe(201);
    expect((await call('GET', '/api/apps/q/datatables/queued/data/')).body.data).toEqual([{ id: 2, full_name: 'Bo' }]);
  });
});
