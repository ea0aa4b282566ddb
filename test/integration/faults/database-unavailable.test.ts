// PostgreSQL going away under load and coming back: while it is away every request is answered 503
// with Retry-After (never a 500, never a dropped connection), and once it is back the pool heals by
// itself, without a restart. The same when the server ends every session (57P01), as a restart does. The database is taken away by a TCP proxy between the platform and the
// server (the machine's PostgreSQL is shared, so it is never stopped); PostgreSQL only.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '#shared/db/database.ts';
import { startTcpProxy, type TcpProxy } from '#test/support/tcp-proxy.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';
import { startTestApp, type ApiResponse, type TestApp } from '#test/support/test-app.ts';

interface Answer {
  phase: 'before' | 'cut' | 'restored';
  status: number;
  retryAfter: string | null;
  code: unknown;
}

describe.skipIf(testDriver !== 'postgres')('PostgreSQL unavailable under load', () => {
  let direct: TestDatabase;
  let proxy: TcpProxy;
  let app: TestApp;

  beforeAll(async () => {
    direct = await createTestDatabase();
    const target = new URL(direct.url!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(direct.url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const db = await connectPostgres({ url: viaProxy.toString(), poolMax: 4 });
    const database: TestDatabase = { db, url: viaProxy.toString(), dispose: () => db.close() };
    app = await startTestApp({}, { database });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await direct?.dispose();
  });

  it('answers 503 with Retry-After while the database is away and heals afterwards', { timeout: 60_000 }, async () => {
    const token = await app.adminToken();
    const answers: Answer[] = [];
    let phase: Answer['phase'] = 'before';
    let running = true;
    // Each answer is filed under the phase its request was sent in.
    const send = async (method: string, path: string, body?: unknown) => {
      const sentIn = phase;
      const answer: ApiResponse = await app.request(method, path, { token, body });
      answers.push({ phase: sentIn, status: answer.status, retryAfter: answer.headers.get('retry-after'), code: answer.body?.code });
    };
    // Eight clients reading and writing without pause, as traffic would while the database goes.
    const worker = async (index: number) => {
      for (let round = 0; running; round += 1) {
        if (round % 4 === 0) {
          await send('POST', '/api/cloud/groups/', { name: `group-${index}-${round}` });
        } else {
          await send('GET', '/api/cloud/users/?page_size=5');
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, index) => worker(index));
    const waitFor = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const count = (wanted: Answer['phase'], success = false) =>
      answers.filter((answer) => answer.phase === wanted && (!success || answer.status < 300)).length;

    await waitFor(() => count('before') >= 20);
    phase = 'cut';
    await proxy.cut();
    // Requests that find no connection wait for the driver's next attempt (it retries with a
    // growing pause) and are refused when it fails: the away phase lasts a second past the first
    // refusals, so some of them wait through it as well.
    await waitFor(() => count('cut') >= 5);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    phase = 'restored';
    const connectionsBefore = proxy.connectionsMade();
    await proxy.restore();
    await waitFor(() => count('restored', true) >= 20);
    running = false;
    await Promise.all(workers);

    const before = answers.filter((answer) => answer.phase === 'before');
    const cut = answers.filter((answer) => answer.phase === 'cut');
    const restored = answers.filter((answer) => answer.phase === 'restored');
    // Nothing but successes and 503s in every phase (requests in flight at the cut are refused too).
    expect(answers.filter((answer) => ![200, 201, 503].includes(answer.status))).toEqual([]);
    expect(before.filter((answer) => answer.status < 300).length).toBeGreaterThanOrEqual(20);
    // While the database was away: nothing but successes in flight before the cut, and 503s.
    const refused = cut.filter((answer) => answer.status >= 300);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((answer) => answer.status === 503)).toBe(true);
    expect(refused.every((answer) => answer.code === 'SERVICE_UNAVAILABLE' && answer.retryAfter === '2')).toBe(true);
    // After: the pool connected again by itself, and once it answered it kept answering.
    expect(proxy.connectionsMade()).toBeGreaterThan(connectionsBefore);
    expect(restored.filter((answer) => answer.status >= 300)).toEqual([]);
  });

  it('answers 503 or succeeds when the server ends the connections (57P01, as on a restart)', { timeout: 60_000 }, async () => {
    const token = await app.adminToken();
    const statuses: Array<{ status: number; retryAfter: string | null }> = [];
    let running = true;
    const worker = async (index: number) => {
      for (let round = 0; running; round += 1) {
        const answer =
          round % 4 === 0
            ? await app.request('POST', '/api/cloud/groups/', { token, body: { name: `ended-${index}-${round}` } })
            : await app.request('GET', '/api/cloud/users/?page_size=5', { token });
        statuses.push({ status: answer.status, retryAfter: answer.headers.get('retry-after') });
      }
    };
    const workers = Array.from({ length: 8 }, (_, index) => worker(index));
    const admin = await connectPostgres({ url: direct.url!, poolMax: 1 });
    let ended = 0;
    try {
      // What a fast shutdown sends every session: "terminating connection due to administrator command".
      for (let time = 0; time < 3; time += 1) {
        const seen = statuses.length;
        while (statuses.length < seen + 20) await new Promise((resolve) => setTimeout(resolve, 20));
        ended += (
          await admin.rows(sql`
            select pg_terminate_backend(pid) from pg_stat_activity
            where datname = current_database() and application_name = 'tessera' and pid <> pg_backend_pid()`)
        ).length;
      }
      const seen = statuses.length;
      while (statuses.filter((answer, index) => index >= seen && answer.status < 300).length < 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      running = false;
      await Promise.all(workers);
      await admin.close();
    }

    expect(ended).toBeGreaterThan(0);
    expect(statuses.filter((answer) => ![200, 201, 503].includes(answer.status))).toEqual([]);
    expect(statuses.filter((answer) => answer.status === 503 && answer.retryAfter !== '2')).toEqual([]);
    // The pool made new connections by itself: every request from now on succeeds.
    const after: number[] = [];
    for (let round = 0; round < 20; round += 1) after.push((await app.request('GET', '/api/cloud/users/?page_size=5', { token })).status);
    expect(after.filter((status) => status !== 200)).toEqual([]);
  });
});
