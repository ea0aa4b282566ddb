// Rate limits of DECISIONS through the dev server: keyed on the caller (whichever token) or the
// source address, never on the path or a forwarding header; headers on every answer; 429 with
// Retry-After; login attempts per address and username; switched off by RATE_LIMIT_ENABLED=false.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { sweepWhenDue } from '#shared/rate-limit/sweep.ts';
import { createSite } from '#test/support/sites.ts';
import { ADMIN, GENEROUS_RATE_LIMITS, startTestApp, USER_PASSWORD, type ApiResponse, type TestApp } from '#test/support/test-app.ts';

/** Sends the same request until it is refused; answers how many got through and the refusal. */
async function exhaust(send: () => Promise<ApiResponse>, atMost = 50): Promise<{ allowed: number; refused: ApiResponse }> {
  for (let sent = 0; sent < atMost; sent += 1) {
    const answer = await send();
    if (answer.status === 429) return { allowed: sent, refused: answer };
  }
  throw new Error(`no 429 after ${atMost} requests`);
}

/**
 * Windows are fixed (they start on the minute and the hour): a scenario that needs its requests in
 * one window waits out the last seconds of a window instead of straddling two.
 */
async function withinOneWindow(windowSeconds = 60, needSeconds = 15): Promise<void> {
  const intoWindow = (Date.now() / 1000) % windowSeconds;
  if (intoWindow > windowSeconds - needSeconds) {
    await new Promise((resolve) => setTimeout(resolve, (windowSeconds - intoWindow + 0.5) * 1000));
  }
}

function expectRefused(answer: ApiResponse, where: string): void {
  expect(answer.status, where).toBe(429);
  expect(Number(answer.headers.get('retry-after')), where).toBeGreaterThan(0);
  expect(answer.headers.get('x-ratelimit-remaining'), where).toBe('0');
}

describe('console limits of a signed-in caller', () => {
  let app: TestApp;
  let token: string;
  let secondToken: string;
  beforeAll(async () => {
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_CONSOLE_PER_MINUTE: '8', RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '3' });
    await app.createUser('writer');
    await app.createUser('bystander');
    token = (await app.login(ADMIN.username, ADMIN.password)).access;
    secondToken = (await app.login(ADMIN.username, ADMIN.password)).access;
  });
  afterAll(async () => {
    await app.close();
  });

  it('sends the limit headers on success and counts down', async () => {
    await withinOneWindow();
    const { access } = await app.login('bystander', USER_PASSWORD);
    const first = await app.request('GET', '/api/cloud/users/', { token: access });
    const second = await app.request('GET', '/api/cloud/users/', { token: access });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('8');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(7);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(6);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('limits writes apart from reads', async () => {
    await withinOneWindow();
    const { access } = await app.login('writer', USER_PASSWORD);
    const { allowed, refused } = await exhaust(() =>
      app.request('POST', '/api/cloud/organizations/', { token: access, body: { name: `Org ${Math.random()}` } }),
    );
    expect(allowed).toBe(3);
    expectRefused(refused, 'write');
    expect(refused.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', error: 'Too many requests' });
    expect(refused.body.retry_after).toBe(Number(refused.headers.get('retry-after')));
    expect((await app.request('GET', '/api/cloud/organizations/', { token: access })).status).toBe(200);
  });

  it('keeps refusing however the path, query, forwarding headers or token change', async () => {
    await withinOneWindow();
    const { allowed, refused } = await exhaust(() => app.request('GET', '/api/cloud/users/', { token }));
    expect(allowed).toBeLessThanOrEqual(8);
    expectRefused(refused, 'plain');
    const attempts: Array<[string, string, Record<string, string>, string]> = [
      ['GET', '/API/cloud/users/', {}, token],
      ['GET', '/api/CLOUD/Users', {}, token],
      ['GET', '/api/cloud/users', {}, token],
      ['GET', '/api/cloud/users//', {}, token],
      ['GET', '//api/cloud/users/', {}, token],
      ['GET', '/api/cloud/users/?page=2&x=1', {}, token],
      ['GET', '/api/users/', {}, token],
      ['GET', '/api/cloud/users/', { 'x-forwarded-for': '203.0.113.7' }, token],
      ['GET', '/api/cloud/users/', { 'x-forwarded-for': '198.51.100.1, 10.0.0.1', 'x-real-ip': '198.51.100.1' }, token],
      ['GET', '/api/cloud/users/', {}, secondToken],
      ['POST', '/api/cloud/users/', {}, secondToken],
      ['GET', '/api/cloud/no-such-thing/', {}, secondToken],
    ];
    for (const [method, path, headers, bearer] of attempts) {
      expectRefused(
        await app.request(method, path, { token: bearer, headers, body: method === 'POST' ? {} : undefined }),
        `${method} ${path} ${JSON.stringify(headers)}`,
      );
    }
  });

  it('leaves other callers alone', async () => {
    const { access } = await app.login('bystander', USER_PASSWORD);
    expect((await app.request('GET', '/api/cloud/users/', { token: access })).status).toBe(200);
  });

  it('keeps one counter row per limit and caller, whatever the paths', async () => {
    const rows = await app.runtime.db.rows<{ key: string }>(sql`select key from platform.rate_limit_counters where key like 'console%'`);
    expect(rows.every((row) => !row.key.includes('/'))).toBe(true);
    expect(rows.filter((row) => row.key.startsWith('console:u:'))).toHaveLength(3);
  });
});

describe('general limits of anonymous callers and login attempts', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_ANONYMOUS_PER_MINUTE: '4', RATE_LIMIT_LOGIN_PER_HOUR: '3' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('counts anonymous requests per source address whatever the forwarding headers say', async () => {
    await withinOneWindow();
    let rotation = 0;
    const { allowed, refused } = await exhaust(() => {
      rotation += 1;
      return app.request('GET', '/.well-known/jwks.json', { headers: { 'x-forwarded-for': `192.0.2.${rotation}` } });
    });
    expect(allowed).toBe(4);
    expectRefused(refused, 'rotated');
    for (const path of ['/.WELL-KNOWN/JWKS.JSON', '/.well-known/jwks.json/', '/.well-known/jwks.json?fresh=1', '/api/apps/', '/nowhere']) {
      expectRefused(await app.request('GET', path, { headers: { 'x-forwarded-for': '192.0.2.200', 'x-tenant': 'none' } }), path);
    }
    // An error answer carries the headers too.
    const anonymousApps = await app.request('GET', '/api/apps/');
    expect(anonymousApps.headers.get('x-ratelimit-limit')).toBe('4');
  });
});

describe('login attempts per source address and username', () => {
  let app: TestApp;
  beforeAll(async () => {
    await withinOneWindow(3600, 30);
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_LOGIN_PER_HOUR: '3' });
    await app.createUser('other');
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses the fourth attempt for a username, even with the right password or another casing', async () => {
    const { allowed, refused } = await exhaust(() =>
      app.request('POST', '/api/auth/jwt/token/', { body: { username: ADMIN.username, password: 'wrong-password' } }),
    );
    // The admin signed in once already (test set-up).
    expect(allowed).toBe(2);
    expectRefused(refused, 'login');
    expectRefused(await app.request('POST', '/api/cloud/auth/jwt/token/', { body: ADMIN }), 'console login');
    expectRefused(await app.request('POST', '/api/auth/jwt/token/', { body: { ...ADMIN, username: ' ADMIN ' } }), 'casing');
    expectRefused(
      await app.request('POST', '/api/auth/jwt/token/', { body: ADMIN, headers: { 'x-forwarded-for': '203.0.113.9' } }),
      'forwarded',
    );
    const other = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'other', password: USER_PASSWORD } });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit')).toBe('3');
  });

  it('counts a username PostgreSQL cannot store (a NUL, a lone surrogate) like any other', async () => {
    // Such a key once failed the whole count: the answer went out without limits, an error logged.
    for (const username of ['zz\u0000', 'yy\uD800', '\uDC00xx']) {
      const { allowed, refused } = await exhaust(() => app.request('POST', '/api/auth/jwt/token/', { body: { username, password: 'x' } }));
      expect(allowed, JSON.stringify(username)).toBe(3);
      expectRefused(refused, JSON.stringify(username));
    }
  });
});

describe('limits on a tenant route', () => {
  let app: TestApp;
  beforeAll(async () => {
    await withinOneWindow(3600, 30);
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_AUTHENTICATED_PER_HOUR: '4' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('counts the signed-in caller in the caller-and-site read, and an invalid body on the way out', async () => {
    const token = await app.adminToken();
    const site = await createSite(app, token, 'Limited');
    const first = await app.request('GET', '/api/apps/', { token, headers: site.headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('3');
    const invalid = await app.request('POST', '/api/apps/', { token, headers: site.headers, body: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('2');
    const { allowed, refused } = await exhaust(() => app.request('GET', '/api/apps/', { token, headers: site.headers }));
    expect(allowed).toBe(2);
    expectRefused(refused, 'tenant');
    expectRefused(await app.request('GET', '/API/apps', { token, headers: site.headers }), 'tenant casing');
  });
});

describe('sweeping ended counters', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_SWEEP_INTERVAL_SECONDS: '1' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('deletes counters whose window ended on a request and keeps the current ones', async () => {
    const now = Math.floor(Date.now() / 1000);
    const hourAgo = Math.floor((now - 3600) / 3600) * 3600 - 3600;
    await app.runtime.db.run(sql`insert into platform.rate_limit_counters (key, window_start, hits) values
      ('general:u:ended-hour', ${hourAgo}, 7), ('general-burst:ip:198.51.100.1', ${hourAgo - 60}, 3),
      ('general:u:current', ${Math.floor(now / 3600) * 3600}, 5)`);
    const keys = async () =>
      (
        await app.runtime.db.rows<{ key: string }>(sql`select key from platform.rate_limit_counters where key like 'general%' order by key`)
      ).map((row) => row.key);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await app.request('GET', '/.well-known/jwks.json')).status).toBe(200);
    expect(await keys()).toEqual(['general-anonymous:ip:127.0.0.1', 'general-burst:ip:127.0.0.1', 'general:u:current']);
  });

  it('sweeps at most once per interval in a process', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ended = now - 7200;
    const insertEnded = (key: string) =>
      app.runtime.db.run(sql`insert into platform.rate_limit_counters (key, window_start, hits) values (${key}, ${ended}, 1)`);
    // A database object of its own, so the app's requests do not move this clock.
    const db = Object.create(app.runtime.db) as typeof app.runtime.db;
    await insertEnded('general:u:first');
    expect(await sweepWhenDue(db, 300, now)).toBeGreaterThanOrEqual(1);
    await insertEnded('general:u:second');
    expect(await sweepWhenDue(db, 300, now + 299)).toBe(0);
    // Due again: 'second' goes (with any live row whose hour ended by then, near the end of an hour).
    expect(await sweepWhenDue(db, 300, now + 300)).toBeGreaterThanOrEqual(1);
    const left = await app.runtime.db.rows(sql`select key from platform.rate_limit_counters where key = 'general:u:second'`);
    expect(left).toEqual([]);
  });

  it('keeps the counters in an unlogged table (no WAL flush per counted request)', async () => {
    const [table] = await app.runtime.db.rows<{ persistence: string }>(sql`select c.relpersistence as persistence
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'platform' and c.relname = 'rate_limit_counters'`);
    expect(table?.persistence).toBe('u');
  });
});

describe('limits switched off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('sends no headers and refuses nothing', async () => {
    for (let sent = 0; sent < 3; sent += 1) {
      const answer = await app.request('GET', '/.well-known/jwks.json');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const rows = await app.runtime.db.rows(sql`select key from platform.rate_limit_counters`);
    expect(rows).toHaveLength(0);
  });
});

describe('a busy caller counted a block at a time', () => {
  // 600 an hour: blocks of up to 3 (a 200th of the limit); the sequence below reaches that size.
  const LIMIT = 600;
  let app: TestApp;
  beforeAll(async () => {
    await withinOneWindow(3600, 60);
    app = await startTestApp({ ...GENEROUS_RATE_LIMITS, RATE_LIMIT_AUTHENTICATED_PER_HOUR: String(LIMIT) });
  });
  afterAll(async () => {
    await app.close();
  });

  const counted = async (key: string): Promise<number> => {
    const [row] = await app.runtime.db.rows<{ hits: number }>(sql`select hits from platform.rate_limit_counters where key = ${key}`);
    return Number(row?.hits ?? 0);
  };

  it('numbers every request exactly, and refuses the first past the limit when another process used the hour', async () => {
    const token = await app.adminToken();
    const site = await createSite(app, token, 'Busy');
    const subject = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sub as string;
    const key = `general:u:${subject}`;
    const remaining: number[] = [];
    for (let sent = 0; sent < 30; sent += 1) {
      const answer = await app.request('GET', '/api/apps/', { token, headers: site.headers });
      expect(answer.status).toBe(200);
      remaining.push(Number(answer.headers.get('x-ratelimit-remaining')));
    }
    // The headers count down one by one, as with single counts.
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, index) => LIMIT - 1 - index));
    // The counter holds at least what was used and at most one block more (blocks: test/unit/rate-limit-leases.test.ts).
    const stored = await counted(key);
    expect(stored).toBeGreaterThanOrEqual(30);
    expect(stored).toBeLessThanOrEqual(30 + 3);

    // Someone else's process used the rest of the hour (its counts are in the same row): this
    // process's reserved counts still number past it, and the first past the limit is refused.
    await app.runtime.db.run(sql`update platform.rate_limit_counters set hits = ${LIMIT - 1} where key = ${key}`);
    const { refused } = await exhaust(() => app.request('GET', '/api/apps/', { token, headers: site.headers }), 10);
    expectRefused(refused, 'after the other process');
    expect(await counted(key)).toBeGreaterThan(LIMIT);
  });
});
