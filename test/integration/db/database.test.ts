import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '#shared/db/database.ts';
import { LockTimeoutError, UniqueViolationError } from '#shared/db/database-errors.ts';
import { ServiceUnavailableError } from '#shared/errors.ts';
import { groups, permissions } from '#shared/db/platform-schema.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

/**
 * Ends the backend running `pg_sleep(5)` once it runs, as a server restart ends every session (57P01);
 * answers how many it ended.
 */
async function endSleepingBackend(admin: Database): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const ended = (
      await admin.rows(sql`select pg_terminate_backend(pid) from pg_stat_activity
        where query like ${'%pg_sleep(5)%'} and query not like ${'%pg_stat_activity%'} and pid <> pg_backend_pid()`)
    ).length;
    if (ended > 0) return ended;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return 0;
}

/**
 * Whether `query` (a count) answers 1 on the server within five seconds, asked through psql: a
 * synchronous child process, so this turn of the event loop stays blocked meanwhile, as it is while
 * a request handler runs.
 */
function serverAnswersOneWhileBlocked(url: string, query: string): boolean {
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const asked = spawnSync('psql', [url, '-XAtc', query], { encoding: 'utf8' });
    if (asked.status !== 0) throw new Error(`psql failed: ${asked.stderr}`);
    if (asked.stdout.trim() === '1') return true;
  }
  return false;
}

describe(`database API on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.dispose();
  });

  it('reports the driver the environment selects', () => {
    expect(test.db.driver).toBe(testDriver);
  });

  it('returns rows as plain arrays and counts as numbers on either driver', async () => {
    const rows = await test.db.rows<{ n: number; label: string }>(sql`select ${41}::int + 1 as n, ${'x'} as label`);
    expect(rows).toEqual([{ n: 42, label: 'x' }]);
    const touched = await test.db.run(sql`update platform.permissions set name = name where model = ${'user'}`);
    expect(touched).toBe(4);
  });

  it('seeds the permission names of the spec through the committed migrations', async () => {
    const seeded = await test.db.query((orm) => orm.select({ codename: permissions.codename }).from(permissions));
    expect(seeded.map((p) => p.codename)).toEqual(
      expect.arrayContaining(['view_user', 'add_user', 'change_user', 'delete_user', 'manage_sites', 'admin_site']),
    );
    expect(seeded).toHaveLength(15);
  });

  it('applies migrations idempotently when started again', async () => {
    const { prepareDatabase } = await import('#shared/db/open-database.ts');
    await prepareDatabase(test.db);
    const count = await test.db.rows<{ n: number }>(sql`select count(*)::int as n from platform.permissions`);
    expect(count[0]!.n).toBe(15);
  });

  it('maps a unique violation to a conflict that names the constraint', async () => {
    await test.db.query((orm) => orm.insert(groups).values({ name: 'editors' }));
    const attempt = test.db.query((orm) => orm.insert(groups).values({ name: 'editors' }));
    await expect(attempt).rejects.toBeInstanceOf(UniqueViolationError);
    await expect(attempt).rejects.toMatchObject({ status: 409, code: 'CONFLICT', constraint: 'groups_name_unique' });
  });

  it('rolls a transaction back when its work throws', async () => {
    const failing = test.db.transaction(async (tx) => {
      await tx.query((orm) => orm.insert(groups).values({ name: 'rolled-back' }));
      throw new Error('stop');
    });
    await expect(failing).rejects.toThrow('stop');
    const left = await test.db.query((orm) => orm.select().from(groups).where(eq(groups.name, 'rolled-back')));
    expect(left).toEqual([]);
  });

  it('commits a transaction and keeps a failed savepoint from undoing the outer work', async () => {
    await test.db.transaction(async (tx) => {
      await tx.query((orm) => orm.insert(groups).values({ name: 'outer' }));
      await expect(
        tx.transaction(async (inner) => inner.query((orm) => orm.insert(groups).values({ name: 'outer' }))),
      ).rejects.toBeInstanceOf(UniqueViolationError);
    });
    const kept = await test.db.query((orm) => orm.select().from(groups).where(eq(groups.name, 'outer')));
    expect(kept).toHaveLength(1);
  });

  it('sets timeouts for the transaction only, leaving the session untouched', async () => {
    const inside = await test.db.transaction(
      (tx) => tx.rows<{ timeout: string }>(sql`select current_setting('statement_timeout') as timeout`),
      { statementTimeoutMs: 1234 },
    );
    expect(inside[0]!.timeout).toBe('1234ms');
    const after = await test.db.rows<{ timeout: string }>(sql`select current_setting('statement_timeout') as timeout`);
    expect(after[0]!.timeout).toBe('0');
  });

  it.runIf(testDriver === 'postgres')('maps a lock that cannot be taken in time to a conflict with Retry-After', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = test.db.transaction(async (tx) => {
      await tx.run(sql`lock table platform.groups in access exclusive mode`);
      locked();
      await held;
    });
    await lockTaken;
    const waiter = test.db.transaction((tx) => tx.rows(sql`select * from platform.groups`), { lockTimeoutMs: 100 });
    await expect(waiter).rejects.toBeInstanceOf(LockTimeoutError);
    await expect(waiter).rejects.toMatchObject({ status: 409, headers: { 'Retry-After': '1' } });
    release();
    await holder;
  });
  it("answers a repeated statement from its prepared form with each run's values", async () => {
    for (const value of [1, 2, 3]) {
      const rows = await test.db.rows<{ n: number; label: string }>(sql`select ${value}::int * 10 as n, ${`run ${value}`} as label`);
      expect(rows).toEqual([{ n: value * 10, label: `run ${value}` }]);
    }
  });

  it.skipIf(testDriver !== 'postgres')('prepares a repeated text once on its connection', async () => {
    // postgres.js finds a connection's prepared statements by text (patches/postgres+3.4.9.patch).
    const single = await connectPostgres({ url: test.url!, poolMax: 1 });
    try {
      for (const value of [1, 2, 3]) {
        expect(await single.rows(sql`select ${value}::int as n, 'prepared once' as tag`)).toEqual([{ n: value, tag: 'prepared once' }]);
      }
      const [found] = await single.rows<{ n: number }>(
        sql`select count(*)::int as n from pg_prepared_statements where statement like ${'%prepared once%'} and statement not like ${'%pg_prepared_statements%'}`,
      );
      expect(found!.n).toBe(1);
    } finally {
      await single.close();
    }
  });

  it.skipIf(testDriver !== 'postgres')(
    'sends a statement once the code that issued it yields, before the turn of the event loop ends',
    async () => {
      // postgres.js held a small statement back for an immediate: the server did not see it until the
      // process had run every other callback of the turn (patches/postgres+3.4.9.patch).
      const single = await connectPostgres({ url: test.url!, poolMax: 1 });
      try {
        await single.run(sql`create table public.flush_check (marker text)`);
        const insert = (marker: string) => single.run(sql`insert into public.flush_check values (${marker})`);
        // Prepared first: a new text with values waits for the server to describe it before it is sent.
        await insert('first');
        const marker = `flush-${Date.now()}`;
        const inserted = insert(marker);
        // What the driver does before it writes runs in microtasks; the turn's immediates cannot run here.
        for (let hop = 0; hop < 20; hop += 1) await Promise.resolve();
        expect(serverAnswersOneWhileBlocked(test.url!, `select count(*) from public.flush_check where marker = '${marker}'`)).toBe(true);
        expect(await inserted).toBe(1);
      } finally {
        await single.run(sql`drop table if exists public.flush_check`);
        await single.close();
      }
    },
  );

  it('keeps answering a prepared statement after the table it reads changes shape', async () => {
    await test.db.run(sql`create table public.shape_check (a int)`);
    await test.db.run(sql`insert into public.shape_check values (1)`);
    const read = () => test.db.rows(sql`select * from public.shape_check where a > ${0}`);
    expect(await read()).toEqual([{ a: 1 }]);
    expect(await read()).toEqual([{ a: 1 }]);
    await test.db.run(sql`alter table public.shape_check add column b text default 'x'`);
    expect(await read()).toEqual([{ a: 1, b: 'x' }]);
    await test.db.run(sql`drop table public.shape_check`);
  });

  it('sends statements together on one connection, each answering or failing on its own', async () => {
    const backend = sql`select pg_backend_pid() as pid`;
    const [first, failing, last] = test.db.rowsTogether([backend, sql`select 1 / ${0}::int as n`, backend]);
    await expect(failing).rejects.toThrow();
    const [[before], [after]] = await Promise.all([first!, last!]);
    expect(before!.pid).toBe(after!.pid);
    // Each batch's connection goes back to the pool: three times the pool's batches all answer.
    const batches = await Promise.all(
      Array.from({ length: 12 }, (_, index) => Promise.all(test.db.rowsTogether([sql`select ${index}::int as n`, backend]))),
    );
    expect(batches.map(([numbered]) => numbered![0]!.n)).toEqual([...Array(12).keys()]);
  });

  it.skipIf(testDriver !== 'postgres')('makes a connection ended under a batch anew instead of handing it out again', async () => {
    // A pool of two, so a connection lost to it would leave half the pool.
    const small = await connectPostgres({ url: test.url!, poolMax: 2 });
    const admin = await connectPostgres({ url: test.url!, poolMax: 1 });
    try {
      const marker = `batch-${Date.now()}`;
      const batch = small.rowsTogether([sql`select pg_sleep(5), ${marker}::text as marker`, sql`select 1 as n`]);
      // Handled from the start: they are answered while the backend is being ended, before the expects below.
      for (const answer of batch) answer.catch(() => undefined);
      expect(await endSleepingBackend(admin)).toBe(1);
      for (const answer of batch) await expect(answer).rejects.toBeInstanceOf(ServiceUnavailableError);
      // Every statement after it is answered: more than the pool holds, one after another and at once.
      for (let index = 0; index < 5; index += 1) expect(await small.rows(sql`select ${index}::int as n`)).toEqual([{ n: index }]);
      const together = await Promise.all(
        Array.from({ length: 6 }, (_, index) => Promise.all(small.rowsTogether([sql`select ${index}::int as n`]))),
      );
      expect(together.map(([rows]) => rows![0]!.n)).toEqual([...Array(6).keys()]);
      const apart = await Promise.all(Array.from({ length: 6 }, (_, index) => small.rows(sql`select ${index}::int as n`)));
      expect(apart.map((rows) => rows[0]!.n)).toEqual([...Array(6).keys()]);
    } finally {
      await small.close();
      await admin.close();
    }
  });

  it.skipIf(testDriver !== 'postgres')('answers the next statement on a connection whose backend was ended mid-statement', async () => {
    // One connection, so the statement after the loss runs on the same connection made anew. Before
    // the fix in patches/postgres+3.4.9.patch it was answered with the lost statement's 57P01.
    const single = await connectPostgres({ url: test.url!, poolMax: 1 });
    const admin = await connectPostgres({ url: test.url!, poolMax: 1 });
    try {
      for (let round = 0; round < 3; round += 1) {
        const marker = `lone-${round}-${Date.now()}`;
        const lost = single.rows(sql`select pg_sleep(5), ${marker}::text as marker`);
        // Handled from the start: it is answered while the backend is being ended, before the expect below.
        lost.catch(() => undefined);
        expect(await endSleepingBackend(admin)).toBe(1);
        await expect(lost).rejects.toBeInstanceOf(ServiceUnavailableError);
        expect(await single.rows(sql`select ${round}::int as n`)).toEqual([{ n: round }]);
      }
    } finally {
      await single.close();
      await admin.close();
    }
  });

  it('leaves the connection usable after a statement fails', async () => {
    await expect(test.db.rows(sql`select 1 / ${0}::int as n`)).rejects.toThrow();
    await expect(test.db.rows(sql`select 1 / ${0}::int as n`)).rejects.toThrow();
    expect(await test.db.rows(sql`select ${7}::int as n`)).toEqual([{ n: 7 }]);
  });
});
