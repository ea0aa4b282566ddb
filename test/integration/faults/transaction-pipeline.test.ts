// A transaction whose BEGIN fills a connection's pipeline. Under 600 connections of mixed traffic
// an upload answered 500 UNSAFE_TRANSACTION: postgres.js pipelines statements onto busy connections
// (up to `max_pipeline`, 100) and, when BEGIN was the statement that filled a pipeline (or the socket
// pushed back), wrote it without reserving the connection: the transaction failed, and PostgreSQL's
// transaction stayed open on a connection the pool went on using for other requests' statements
// (porsager/postgres#823, #1189, #1210). patches/postgres+3.4.9.patch reserves the connection
// whenever BEGIN is written. Forced here without load through the same line of the driver: with
// `max_pipeline: 0` every BEGIN fills its pipeline. PostgreSQL only (PGlite has no pipeline).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

describe.skipIf(testDriver !== 'postgres')('a transaction whose BEGIN fills the pipeline', () => {
  let direct: TestDatabase;
  let pool: postgres.Sql;

  beforeAll(async () => {
    direct = await createTestDatabase();
    // max_pipeline is an option of the driver its type declarations leave out.
    const options = { max: 2, max_pipeline: 0, onnotice: () => undefined };
    pool = postgres(direct.url!, options);
    await pool`create table pipeline_writes (id int primary key)`;
  });
  afterAll(async () => {
    await pool?.end({ timeout: 5 });
    await direct?.dispose();
  });

  it('runs the transactions on reserved connections and leaves no session inside one', async () => {
    // Act: two transactions beside statements that keep both connections busy
    const outcomes = await Promise.allSettled([
      pool`select pg_sleep(0.05)`,
      pool`select pg_sleep(0.05)`,
      pool.begin((tx) => tx`insert into pipeline_writes (id) values (1)`),
      pool.begin((tx) => tx`insert into pipeline_writes (id) values (2)`),
    ]);
    const [sessions] = await pool<{ open: number }[]>`
      select count(*)::int as open from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`;
    const written = await pool<{ id: number }[]>`select id from pipeline_writes order by id`;
    // Assess
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason))).toEqual([]);
    expect(sessions!.open).toBe(0);
    expect(written.map((row) => row.id)).toEqual([1, 2]);
  });
});
