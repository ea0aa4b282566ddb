// Issue 2 (a): requests/s of `GET /api/cloud/users/?page_size=20` with a bearer token through the
// dev server, against a bare node:http server that runs the same two statements on the same
// database (baseline-server.ts). Same client, connections and duration, rounds alternating order.
import { mkdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { loadConfig } from '#shared/config.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { startBaselineServer } from './baseline-server.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase } from './bench-database.ts';
import { heading, note } from './report.ts';
import { benchSettings } from './settings.ts';
import { comparePlatformToBaseline } from './compare-servers.ts';

const PATH = '/api/cloud/users/?page_size=20';
const SEEDED_USERS = 1_000;
const TARGET_RATIO = 0.6;
const ADMIN = BENCH_ADMIN;

function tokenClaims(token: string): { sub: string; jti: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string; jti: string };
}

async function fetchJson(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

export async function benchUsersList(): Promise<void> {
  const settings = benchSettings();
  heading(`users-list: GET ${PATH}, dev server vs bare node:http baseline`);
  const baseConfig = loadConfig({});
  const database = await openBenchDatabase(baseConfig.database.poolMax);
  try {
    await mkdir(database.dataDir, { recursive: true });
    const config = benchConfig(database.dataDir);
    const { runtime } = await bootLocal(config, { db: database.db });
    await runtime.db.run(sql`
      insert into platform.users (username, email, password_hash, first_name, last_name, date_joined)
      select 'user' || lpad(n::text, 5, '0'), 'user' || n || '@example.com', 'not-a-hash', 'First' || n, 'Last' || n,
        now() - n * interval '1 hour'
      from generate_series(1, ${SEEDED_USERS}) as n`);

    const platform = await startDevServer(0);
    const login = await fetchJson(`${platform.url}/api/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    const access = (login.body as { access: string }).access;
    const claims = tokenClaims(access);
    const baseline = await startBaselineServer(runtime.db, { subject: claims.sub, tokenId: claims.jti });
    const servers = [
      { name: 'platform (dev server)', url: platform.url },
      { name: 'baseline (node:http + SQL)', url: baseline.url },
    ] as const;

    try {
      // Both must answer the same thing, or the ratio compares different work.
      const headers = { authorization: `Bearer ${access}` };
      const [fromPlatform, fromBaseline] = await Promise.all(servers.map((server) => fetchJson(`${server.url}${PATH}`, { headers })));
      const normalise = (answer: { status: number; body: unknown }, origin: string) =>
        `${answer.status} ${JSON.stringify(answer.body).replaceAll(origin, 'ORIGIN')}`;
      if (normalise(fromPlatform!, platform.url) !== normalise(fromBaseline!, baseline.url)) {
        throw new Error(
          `the servers answer differently:\n platform ${normalise(fromPlatform!, platform.url).slice(0, 400)}\n baseline ${normalise(fromBaseline!, baseline.url).slice(0, 400)}`,
        );
      }
      note(`database: ${database.label}; ${SEEDED_USERS + 1} users; both servers in this process (pid ${process.pid})`);
      note(`answers identical (status 200, count ${(fromPlatform!.body as { count: number }).count}, 20 results)`);
      await comparePlatformToBaseline(
        [
          { name: servers[0].name, url: `${servers[0].url}${PATH}` },
          { name: servers[1].name, url: `${servers[1].url}${PATH}` },
        ],
        headers,
        settings,
        TARGET_RATIO,
      );
    } finally {
      await baseline.close();
      await platform.close();
    }
  } finally {
    await database.dispose();
  }
}
