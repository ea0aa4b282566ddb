// Issue 15 (5): the workload matrix. Each list shape users write, through the dev server, against a
// bare node:http server doing the same SQL work on the same database and pool: page and count as
// two prepared statements sent together (the statements the platform's one list statement is made
// of, captured from compile.ts), answered with JSON.stringify. 8 connections, rounds alternating,
// median of BENCH_ROUNDS (≥ 3). Then `_count=planned` against `_count=exact` on 1,000,000 rows.
import { get } from 'node:http';
import { sql } from 'drizzle-orm';
import { listSql } from '#functions/data/records/query/compile.ts';
import {
  bareListAnswer,
  capture,
  captureList,
  describeTrace,
  percentile,
  runSequential,
  startDataPlatform,
  APP_SLUG,
  type CapturedList,
  type DataPlatform,
} from './data-platform.ts';
import { startBareServer } from './bare-server.ts';
import { startBaselineServer } from './baseline-server.ts';
import { comparePlatformToBaseline, type Comparison } from './compare-servers.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';
import { benchCpuProbe } from './cpu-probe.ts';

const TARGET_RATIO = 0.8;
const CONNECTIONS = 8;
const ROWS = 100_000;
const LARGE_ROWS = 1_000_000;
const USERS = 10_000;
const PLANNED_TARGET = 0.1;

export const ITEMS_SCHEMA = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'category', type: 'string', constraints: { required: true } },
    { name: 'status', type: 'string', constraints: { required: true } },
    { name: 'price', type: 'number' },
    { name: 'qty', type: 'integer' },
    { name: 'title', type: 'string' },
    { name: 'created', type: 'datetime', constraints: { required: true } },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['title'] },
  ],
  primaryKey: ['id'],
  indexes: [
    { name: 'category', fields: ['category'] },
    { name: 'price', fields: ['price'] },
    { name: 'status_created', fields: ['status', 'created'] },
  ],
};

interface Shape {
  name: string;
  table: 'items' | 'items_large';
  query: string;
}

/** Shape 1 matches category garden (1 in 8) with price > 1,000 (9 in 10): about 11%. */
const SHAPE_1 = 'category=garden&price__gt=1000&_sort=-price&page=1&page_size=20';
/** Shape 2 matches status open (1 in 4), in the order of the (status, created) index. */
export const SHAPE_2 = 'status=open&_sort=-created&page=1&page_size=20';
const SHAPES: Shape[] = [
  { name: '1. equality + range on two indexes, sort by the range desc (100k)', table: 'items', query: SHAPE_1 },
  { name: '1. the same on 1,000,000 rows', table: 'items_large', query: SHAPE_1 },
  { name: '2. equality + sort on one composite index', table: 'items', query: SHAPE_2 },
  { name: '3. half the rows, sorted by an unindexed column', table: 'items', query: 'qty__lt=50&_sort=-qty&page=1&page_size=20' },
  { name: '4. shape 2 at offset 10,000', table: 'items', query: 'status=open&_sort=-created&page=501&page_size=20' },
  { name: '5. search= with rank', table: 'items', query: 'search=lamp&page=1&page_size=20' },
  { name: '6. _aggregate with _group_by', table: 'items', query: '_aggregate=count(*),sum(price),avg(qty)&_group_by=category' },
];
const USERS_PATH = '/api/cloud/users/?search=user1&page_size=20';

/**
 * BENCH_MATRIX_SHAPES (e.g. `1,2,7`) runs only those shapes for a quick look; `1` includes its
 * 1,000,000-row run and the planned-vs-exact figures, which need the large table.
 */
function chosenShapes(): { shapes: Shape[]; users: boolean; large: boolean } {
  const raw = process.env.BENCH_MATRIX_SHAPES;
  if (raw === undefined || raw === '') return { shapes: SHAPES, users: true, large: true };
  const numbers = new Set(raw.split(',').map((item) => item.trim()));
  const shapes = SHAPES.filter((shape) => numbers.has(shape.name.split('.')[0]!));
  return { shapes, users: numbers.has('7'), large: shapes.some((shape) => shape.table === 'items_large') };
}

/** Rows of the items tables, made in one statement (uuid keys, a title vocabulary for search). */
export async function seedItems(platform: DataPlatform, physical: string, rows: number): Promise<number> {
  const started = performance.now();
  await platform.db.run(
    sql.raw(`insert into ${physical} (id, category, status, price, qty, title, created)
      select gen_random_uuid(),
        (array['garden', 'kitchen', 'tools', 'toys', 'books', 'music', 'sports', 'office'])[1 + n % 8],
        (array['open', 'closed', 'pending', 'cancelled'])[1 + (n / 8) % 4],
        ((n::bigint * 7919) % 10000) + 0.5, (n::bigint * 31) % 100,
        (array['red', 'blue', 'green', 'black', 'white', 'grey', 'brown', 'pink', 'gold', 'teal', 'navy', 'plum', 'sand', 'mint', 'rose', 'jade'])[1 + n % 16]
          || ' ' || (array['lamp', 'chair', 'table', 'shelf', 'desk', 'sofa', 'stool', 'bench', 'rack', 'bed', 'rug', 'vase', 'clock', 'fan', 'mirror', 'crate'])[1 + (n / 16) % 16]
          || ' ' || n,
        timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute'
      from generate_series(1, ${rows}) as n`),
  );
  // Vacuumed as autovacuum leaves it soon after a load, and written out: measured before, the rounds
  // swung with autovacuum and checkpoints coming by (a role without the right skips the checkpoint).
  await platform.db.run(sql.raw(`vacuum analyze ${physical}`));
  await platform.db.run(sql.raw('checkpoint')).catch(() => undefined);
  return (performance.now() - started) / 1000;
}

function tokenClaims(token: string): { sub: string; jti: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string; jti: string };
}

/**
 * GET on a connection of its own, closed after the answer. fetch's pool keeps the set-up's
 * connections open, and on PGlite the statement-forms phase holds this process's event loop (the
 * database runs in it) for longer than the dev server's keep-alive: the server's idle timer and the
 * client's reuse then meet in the same turn, the server destroys a socket with the new request
 * unread, and the client reads ECONNRESET (`connection: close` does not help: it still goes out on
 * the pooled socket). A fresh connection after each long phase avoids the race.
 */
function freshGet(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function sameAnswer(urls: [string, string], headers: Record<string, string>, origins: [string, string]): Promise<unknown> {
  const answers = await Promise.all(
    urls.map(async (url, index) => {
      const { status, text } = await freshGet(url, headers);
      return `${status} ${JSON.stringify(JSON.parse(text)).replaceAll(origins[index]!, 'ORIGIN')}`;
    }),
  );
  if (answers[0] !== answers[1])
    throw new Error(`the servers answer differently:\n platform ${answers[0]!.slice(0, 400)}\n bare     ${answers[1]!.slice(0, 400)}`);
  return JSON.parse(answers[0]!.slice(4));
}

export async function benchDataMatrix(): Promise<void> {
  const settings = { ...benchSettings(), connections: process.env.BENCH_CONNECTIONS ? benchSettings().connections : CONNECTIONS };
  heading(`data-matrix: ${SHAPES.length + 1} list shapes, dev server vs a bare node:http server sending page and count together`);
  const platform = await startDataPlatform();
  const cpu = benchCpuProbe(platform.database);
  try {
    const items = await platform.createTable('items', ITEMS_SCHEMA);
    const chosen = chosenShapes();
    const large = await platform.createTable('items_large', ITEMS_SCHEMA);
    const seeded = [
      await seedItems(platform, items.physical, ROWS),
      chosen.large ? await seedItems(platform, large.physical, LARGE_ROWS) : 0,
    ];
    const usersStarted = performance.now();
    await platform.db.run(sql`
      insert into platform.users (username, email, password_hash, first_name, last_name, date_joined)
      select 'user' || lpad(n::text, 5, '0'), 'user' || n || '@example.com', 'not-a-hash', 'First' || n, 'Last' || n, now() - n * interval '1 hour'
      from generate_series(1, ${USERS}) as n`);
    await platform.db.run(sql`analyze platform.users`);
    note(
      `database: ${platform.database.label}; both servers in this process (pid ${process.pid}); rate limits ${process.env.RATE_LIMIT_ENABLED === 'false' ? 'OFF' : 'on (every request counted)'}`,
    );
    note(
      `items: ${ROWS} rows in ${fixed(seeded[0]!)} s, items_large: ${LARGE_ROWS} rows in ${fixed(seeded[1]!)} s, users: ${USERS} more in ${fixed((performance.now() - usersStarted) / 1000)} s; indexes category, price, (status, created)`,
    );

    const descriptors = { items: items.descriptor, items_large: large.descriptor };
    const lists = new Map(
      chosen.shapes.map((shape) => [
        `/api/apps/${APP_SLUG}/datatables/${shape.table}/data/?${shape.query}`,
        captureList(descriptors[shape.table], shape.query),
      ]),
    );
    await statementForms(platform, lists, Math.max(1, Math.round(settings.durationSeconds / 2)), Math.max(3, settings.rounds));
    const bare = await startBareServer((pathAndQuery) => {
      const list = lists.get(pathAndQuery);
      return list === undefined ? undefined : bareListAnswer(platform.db, list);
    });
    const claims = tokenClaims(platform.adminToken);
    const usersBare = await startBaselineServer(platform.db, { subject: claims.sub, tokenId: claims.jti, separateCount: true });
    const results: Array<{ name: string; comparison: Comparison; total: unknown }> = [];
    try {
      for (const shape of chosen.shapes) {
        const path = `/api/apps/${APP_SLUG}/datatables/${shape.table}/data/?${shape.query}`;
        heading(`data-matrix ${shape.name}: GET ${path}`);
        const answer = (await sameAnswer([`${platform.url}${path}`, `${bare.url}${path}`], platform.headers, [platform.url, bare.url])) as {
          total: unknown;
        };
        const list = lists.get(path)!;
        note(`answers equal as JSON (total ${String(answer.total)}); bare page: ${list.page.text.replace(/\s+/g, ' ').slice(0, 220)}…`);
        if (shape === chosen.shapes[0]) {
          const trace = await platform.trace(() => freshGet(`${platform.url}${path}`, platform.headers));
          note(`the platform ran ${trace.length} statements for one request:`);
          for (const line of describeTrace(trace)) note(`  ${line}`);
        }
        const comparison = await comparePlatformToBaseline(
          [
            { name: 'platform (dev server)', url: `${platform.url}${path}` },
            { name: 'bare (node:http + page ∥ count)', url: `${bare.url}${path}` },
          ],
          platform.headers,
          settings,
          TARGET_RATIO,
          cpu,
        );
        results.push({ name: shape.name, comparison, total: answer.total });
      }
      if (chosen.users) {
        heading(`data-matrix 7. users list over ${USERS + 2} users with a search term: GET ${USERS_PATH}`);
        const adminHeaders = { authorization: `Bearer ${platform.adminToken}` };
        const users = (await sameAnswer([`${platform.url}${USERS_PATH}`, `${usersBare.url}${USERS_PATH}`], adminHeaders, [
          platform.url,
          usersBare.url,
        ])) as { count: number };
        note(`answers equal as JSON (count ${users.count}); bare server: principal lookup, then page ∥ count`);
        const comparison = await comparePlatformToBaseline(
          [
            { name: 'platform (dev server)', url: `${platform.url}${USERS_PATH}` },
            { name: 'bare (node:http + principal, page ∥ count)', url: `${usersBare.url}${USERS_PATH}` },
          ],
          adminHeaders,
          settings,
          TARGET_RATIO,
          cpu,
        );
        results.push({ name: '7. users list with a search term', comparison, total: users.count });
      }
    } finally {
      await bare.close();
      await usersBare.close();
    }

    heading('data-matrix summary (median req/s of the rounds)');
    table(
      ['shape', 'total', 'platform req/s (p50 ms)', 'bare req/s (p50 ms)', 'ratio'],
      results.map(({ name, comparison, total }) => [
        name,
        String(total),
        `${fixed(comparison.platform.rps)} (${fixed(comparison.platform.p50, 0)})`,
        `${fixed(comparison.baseline.rps)} (${fixed(comparison.baseline.p50, 0)})`,
        ratioAgainst(comparison.ratio, TARGET_RATIO, true),
      ]),
    );

    if (chosen.large) await plannedAgainstExact(platform);
  } finally {
    await platform.close();
  }
}

/**
 * The choice of issue 15 (1), measured without HTTP: per shape, lists per second of the platform's
 * one statement (count and page as separate subqueries) against page and count sent together on
 * the pool, with CONNECTIONS workers in this process each running one list after another.
 */
async function statementForms(platform: DataPlatform, lists: Map<string, CapturedList>, seconds: number, rounds: number): Promise<void> {
  heading(
    `data-matrix statement forms (database only, ${CONNECTIONS} workers, ${seconds} s per form, ${rounds} rounds alternating, median lists/s)`,
  );
  const throughput = async (work: () => Promise<unknown>) => {
    let done = 0;
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          await work();
          done += 1;
        }
      }),
    );
    return done / seconds;
  };
  const rows: string[][] = [];
  for (const [path, list] of lists) {
    const one = capture(listSql(list.table, list.plan));
    const forms = {
      one: () => platform.db.rows(one.statement),
      two: () => Promise.all([platform.db.rows(list.page.statement), platform.db.rows(list.count.statement)]),
    };
    const seen = { one: [] as number[], two: [] as number[] };
    for (const form of ['one', 'two'] as const) await throughput(forms[form]); // warm-up, prepares
    for (let round = 0; round < rounds; round += 1) {
      for (const form of round % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const))
        seen[form].push(await throughput(forms[form]));
    }
    const one_ = median(seen.one);
    const two = median(seen.two);
    rows.push([path.replace(/^.*\/data\/\?/, ''), fixed(one_), fixed(two), fixed(one_ / two, 2)]);
  }
  table(['query', 'one statement lists/s', 'page ∥ count lists/s', 'one / two'], rows);
}

/** `_count=planned` against `_count=exact` on the 1,000,000-row table: sequential requests, p50. */
async function plannedAgainstExact(platform: DataPlatform): Promise<void> {
  const queries = [SHAPE_1, 'price__gt=1000&_sort=-price&page=1&page_size=20'];
  heading(`data-matrix _count=planned vs exact on ${LARGE_ROWS} rows (sequential requests through the dev server, p50)`);
  const rows: string[][] = [];
  for (const query of queries) {
    const p50 = async (count: string) => {
      const url = `${platform.url}/api/apps/${APP_SLUG}/datatables/items_large/data/?${query}&_count=${count}`;
      const answer = JSON.parse((await freshGet(url, platform.headers)).text) as { total: number };
      const latencies = await runSequential({ url, headers: platform.headers, warmup: 5, requests: 60, maxSeconds: 20 });
      return { p50: percentile(latencies, 0.5), total: answer.total };
    };
    const exact = await p50('exact');
    const planned = await p50('planned');
    rows.push([
      query,
      `${fixed(exact.p50, 2)} ms (${exact.total})`,
      `${fixed(planned.p50, 2)} ms (${planned.total})`,
      ratioAgainst(planned.p50 / exact.p50, PLANNED_TARGET, false),
    ]);
  }
  table(['query', 'exact p50 (total)', 'planned p50 (estimate)', 'planned / exact'], rows);
}
