// Issue 18: what counting every request against its rate limits costs. Requests/s of the users
// list, `GET /api/cloud/users/?page_size=20` with a bearer token, through the dev server, with
// limits on (numbers no run reaches, so every request is counted and none refused) and off
// (`RATE_LIMIT_ENABLED=false`), alternating rounds on the same server and database: the count rides
// in the statement that reads the caller. Each mode's settings are loaded from the environment
// variables as a deployment would set them, and each is checked on a real answer before it is
// measured: headers and a growing counter row when on, neither when off.
import { mkdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { loadConfig, type RateLimitConfig } from '#shared/config.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer } from '#infra/local/dev-server.ts';
import { BENCH_ADMIN, BENCH_RATE_LIMITS, benchConfig, openBenchDatabase } from './bench-database.ts';
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
    const limitsWhen = (enabled: 'true' | 'false'): RateLimitConfig | undefined =>
      loadConfig({ ...BENCH_RATE_LIMITS, DATA_DIR: database.dataDir, RATE_LIMIT_ENABLED: enabled }).rateLimit;
    const limits = limitsWhen('true');
    const noLimits = limitsWhen('false');
    if (limits === undefined || noLimits !== undefined) throw new Error('RATE_LIMIT_ENABLED did not switch the limits');
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
      /** The hits the database holds for the console counters: what was used plus what a process reserved. */
      const storedHits = async (): Promise<number> => {
        const rows = await runtime.db.rows<{ hits: number }>(
          sql`select hits from platform.rate_limit_counters where key like 'console:%' order by window_start desc limit 1`,
        );
        return Number(rows[0]?.hits ?? 0);
      };
      const page = async (): Promise<Response> => {
        const answer = await fetch(`${server.url}${PATH}`, { headers });
        const body = (await answer.clone().json()) as { count?: number; results?: unknown[] };
        if (answer.status !== 200 || body.count !== SEEDED_USERS + 1 || body.results?.length !== 20) {
          throw new Error(`the users list did not answer a page of 20 of ${SEEDED_USERS + 1}: ${answer.status}`);
        }
        return answer;
      };
      /**
       * Two answers of the mode now applied. Limited: both carry the headers, count down by one, and
       * the database holds at least the number the second was given (a busy caller's counts are
       * reserved in blocks, shared/rate-limit/leases.ts, so a request need not write the row).
       * Not limited: no headers, and the counters are left as they were.
       */
      const checkMode = async (limited: boolean): Promise<void> => {
        // autocannon stops without waiting for its last requests: let the server finish them first.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const before = await storedHits();
        const [first, second] = [await page(), await page()];
        const remaining = [first, second].map((answer) => answer.headers.get('x-ratelimit-remaining'));
        const limit = Number(second.headers.get('x-ratelimit-limit'));
        const stored = await storedHits();
        const counted =
          remaining[0] !== null && Number(remaining[1]) === Number(remaining[0]) - 1 && stored >= limit - Number(remaining[1]);
        const untouched = remaining[0] === null && remaining[1] === null && stored === before;
        if (limited ? !counted : !untouched)
          throw new Error(`limits ${limited ? 'not on' : 'not off'}: remaining ${remaining.join(', ')}, stored hits ${before} → ${stored}`);
      };
      note(
        `database: ${database.label}; ${SEEDED_USERS + 1} users; limits switched per round on the same server (RATE_LIMIT_ENABLED true vs false, each checked on an answer)`,
      );
      note(
        `load: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up each, ${settings.rounds} rounds of ${settings.durationSeconds} s, order alternating`,
      );
      const modes = [
        {
          name: 'limits on',
          limited: true,
          apply: () => {
            runtime.config.rateLimit = limits;
          },
        },
        {
          name: 'limits off',
          limited: false,
          apply: () => {
            runtime.config.rateLimit = noLimits;
          },
        },
      ] as const;
      const load = (durationSeconds: number) =>
        runLoad({ url: `${server.url}${PATH}`, headers, connections: settings.connections, durationSeconds });
      for (const mode of modes) {
        mode.apply();
        await checkMode(mode.limited);
        await load(settings.warmupSeconds);
      }
      const results = new Map<string, LoadResult[]>(modes.map((mode) => [mode.name, []]));
      for (let round = 0; round < settings.rounds; round += 1) {
        for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
          mode.apply();
          await checkMode(mode.limited);
          const result = await load(settings.durationSeconds);
          if (result.failures > 0) throw new Error(`${mode.name}: ${result.failures} failed requests`);
          results.get(mode.name)!.push(result);
        }
      }
      runtime.config.rateLimit = limits;
      const rows = modes.flatMap((mode) =>
        results
          .get(mode.name)!
          .map((run, round) => [
            `${mode.name} #${round + 1}`,
            fixed(run.requestsPerSecond),
            fixed(run.latencyP50Ms, 0),
            fixed(run.latencyP99Ms, 0),
          ]),
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
