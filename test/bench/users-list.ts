// Issue 2 (a): requests/s of `GET /api/cloud/users/?page_size=20` with a bearer token through the
// dev server, against a bare node:http server that runs the same two statements on the same
// database (baseline-server.ts). Same client, connections and duration, rounds alternating order.
import { mkdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { loadConfig } from '#shared/config.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { startBaselineServer } from './baseline-server.ts';
import { openBenchDatabase } from './bench-database.ts';
import { runLoad, type LoadResult } from './load.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';

const PATH = '/api/cloud/users/?page_size=20';
const SEEDED_USERS = 1_000;
const TARGET_RATIO = 0.6;
const ADMIN = { username: 'admin', password: 'bench-admin-password' };

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
    const config = loadConfig({
      DATA_DIR: database.dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      PASSWORD_SCRYPT_COST: '1024',
      LOG_LEVEL: 'WARN',
      REQUEST_LOG: 'false',
    });
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
      note(
        `load: autocannon CLI in a child process, ${settings.connections} connections, ` +
          `${settings.warmupSeconds} s warm-up each, then ${settings.rounds} rounds of ${settings.durationSeconds} s per server, order alternating`,
      );

      const load = (url: string, durationSeconds: number) =>
        runLoad({ url: `${url}${PATH}`, headers, connections: settings.connections, durationSeconds });
      for (const server of servers) await load(server.url, settings.warmupSeconds);

      const results = new Map<string, LoadResult[]>(servers.map((server) => [server.name, []]));
      for (let round = 0; round < settings.rounds; round += 1) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) {
          const result = await load(server.url, settings.durationSeconds);
          if (result.failures > 0) throw new Error(`${server.name}: ${result.failures} failed requests in round ${round + 1}`);
          results.get(server.name)!.push(result);
        }
      }

      const rows: string[][] = [];
      for (const server of servers) {
        results.get(server.name)!.forEach((result, round) =>
          rows.push([
            `${server.name} #${round + 1}`,
            fixed(result.requestsPerSecond),
            fixed(result.latencyP50Ms, 0),
            fixed(result.latencyP99Ms, 0),
            String(result.requests),
          ]),
        );
      }
      const summary = servers.map((server) => {
        const runs = results.get(server.name)!;
        return {
          name: server.name,
          rps: median(runs.map((run) => run.requestsPerSecond)),
          p50: median(runs.map((run) => run.latencyP50Ms)),
          p99: median(runs.map((run) => run.latencyP99Ms)),
        };
      });
      for (const entry of summary) rows.push([`${entry.name} median`, fixed(entry.rps), fixed(entry.p50, 0), fixed(entry.p99, 0), '']);
      table(['run', 'req/s', 'p50 ms', 'p99 ms', 'requests'], rows);
      const [platformSummary, baselineSummary] = summary;
      const perRound = results
        .get(servers[0].name)!
        .map((run, round) => fixed(run.requestsPerSecond / results.get(servers[1].name)![round]!.requestsPerSecond, 2));
      note(`ratio platform / baseline (median req/s): ${ratioAgainst(platformSummary!.rps / baselineSummary!.rps, TARGET_RATIO, true)}`);
      note(`ratio per round: ${perRound.join(', ')}`);
      note(
        `1 / throughput: platform ${fixed(1000 / platformSummary!.rps, 3)} ms, baseline ${fixed(1000 / baselineSummary!.rps, 3)} ms ` +
          `per request (the platform adds ${fixed(1000 / platformSummary!.rps - 1000 / baselineSummary!.rps, 3)} ms)`,
      );
    } finally {
      await baseline.close();
      await platform.close();
    }
  } finally {
    await database.dispose();
  }
}
