// Issue 18: what counting every request against its rate limits costs. Requests/s of
// `GET /api/cloud/users/?page_size=20` with a bearer token through the dev server, with limits on
// (numbers no run reaches, so every request is counted and none refused) and off, alternating
// rounds on the same server and database: the count rides in the statement that reads the caller.
import { mkdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { loadConfig } from '#shared/config.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { BENCH_ADMIN, benchConfig, openBenchDatabase } from './bench-database.ts';
import { runLoad, type LoadResult } from './load.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';

const PATH = '/api/cloud/users/?page_size=20';
const SEEDED_USERS = 1_000;
const TARGET_RATIO = 0.9;

export async function benchRateLimits(): Promise<void> {
  const settings = benchSettings();
  heading(`rate-limits: GET ${PATH} through the dev server, limits on vs off`);
  const database = await openBenchDatabase(loadConfig({}).database.poolMax);
  try {
    await mkdir(database.dataDir, { recursive: true });
    const { runtime } = await bootLocal(benchConfig(database.dataDir), { db: database.db });
    const limits = runtime.config.rateLimit!;
    await runtime.db.run(sql`
      insert into platform.users (username, email, password_hash, first_name, last_name, date_joined)
      select 'user' || lpad(n::text, 5, '0'), 'user' || n || '@example.com', 'not-a-hash', 'First' || n, 'Last' || n,
        now() - n * interval '1 hour'
      from generate_series(1, ${SEEDED_USERS}) as n`);
    const server = await startDevServer(0);
    try {
      const login = await fetch(`${server.url}/api/auth/jwt/token/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(BENCH_ADMIN),
      });
      const { access } = (await login.json()) as { access: string };
      const headers = { authorization: `Bearer ${access}` };
      const check = await fetch(`${server.url}${PATH}`, { headers });
      if (check.status !== 200 || check.headers.get('x-ratelimit-limit') === null) throw new Error(`limits not on: ${check.status}`);
      note(`database: ${database.label}; ${SEEDED_USERS + 1} users; limits switched per round on the same server (runtime config)`);
      note(`load: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up each, ${settings.rounds} rounds of ${settings.durationSeconds} s, order alternating`);
      const modes = [
        {
          name: 'limits on',
          apply: () => {
            runtime.config.rateLimit = limits;
          },
        },
        {
          name: 'limits off',
          apply: () => {
            runtime.config.rateLimit = undefined;
          },
        },
      ] as const;
      const load = (durationSeconds: number) => runLoad({ url: `${server.url}${PATH}`, headers, connections: settings.connections, durationSeconds });
      for (const mode of modes) {
        mode.apply();
        await load(settings.warmupSeconds);
      }
      const results = new Map<string, LoadResult[]>(modes.map((mode) => [mode.name, []]));
      for (let round = 0; round < settings.rounds; round += 1) {
        for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
          mode.apply();
          const result = await load(settings.durationSeconds);
          if (result.failures > 0) throw new Error(`${mode.name}: ${result.failures} failed requests`);
          results.get(mode.name)!.push(result);
        }
      }
      runtime.config.rateLimit = limits;
      const rows = modes.flatMap((mode) =>
        results.get(mode.name)!.map((run, round) => [`${mode.name} #${round + 1}`, fixed(run.requestsPerSecond), fixed(run.latencyP50Ms, 0), fixed(run.latencyP99Ms, 0)]),
      );
      const [on, off] = modes.map((mode) => median(results.get(mode.name)!.map((run) => run.requestsPerSecond))) as [number, number];
      rows.push(['limits on median', fixed(on), '', ''], ['limits off median', fixed(off), '', '']);
      table(['run', 'req/s', 'p50 ms', 'p99 ms'], rows);
      note(`ratio on / off (median req/s): ${ratioAgainst(on / off, TARGET_RATIO, true)}`);
    } finally {
      await server.close();
    }
  } finally {
    await database.dispose();
  }
}
