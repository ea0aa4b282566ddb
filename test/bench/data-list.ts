// Issue 4 (a): req/s of a filtered, sorted, paged record list over a 100k-row flat table, through
// the dev server (member's bearer token + X-Tenant) against a bare node:http server that runs the
// page and the count the platform's list statement is made of (text + params captured once from
// compile.ts, outside the timed path) as two statements sent together, on the same database. Same autocannon client in a child process, rounds alternating order.
import { sql } from 'drizzle-orm';
import { bareListAnswer, captureList, describeTrace, startDataPlatform, APP_SLUG } from './data-platform.ts';
import { startBareServer } from './bare-server.ts';
import { fixed, heading, note } from './report.ts';
import { benchSettings } from './settings.ts';
import { comparePlatformToBaseline } from './compare-servers.ts';

export const ROWS = 100_000;
const TARGET_RATIO = 0.6;
const TABLE = 'orders';
const QUERY = 'category=c07&status=open&_sort=-created&page=3&page_size=20';

export const ORDERS_SCHEMA = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'category', type: 'string', constraints: { required: true } },
    { name: 'status', type: 'string', constraints: { required: true, enum: ['open', 'closed', 'pending', 'cancelled'] } },
    { name: 'price', type: 'number', constraints: { minimum: 0 } },
    { name: 'created', type: 'datetime', constraints: { required: true } },
    { name: 'title', type: 'string' },
  ],
  primaryKey: ['id'],
  indexes: [{ name: 'category_status_created', fields: ['category', 'status', 'created'] }],
};

export async function benchDataList(): Promise<void> {
  const settings = benchSettings();
  const path = `/api/apps/${APP_SLUG}/datatables/${TABLE}/data/?${QUERY}`;
  heading(`data-list: GET ${path} over ${ROWS / 1000}k rows, dev server vs bare node:http with the same page and count`);
  const platform = await startDataPlatform();
  try {
    const { physical, descriptor } = await platform.createTable(TABLE, ORDERS_SCHEMA);
    const seedStarted = performance.now();
    await platform.db.run(
      sql.raw(`
      insert into ${physical} (category, status, price, created, title)
      select 'c' || lpad((n % 50)::text, 2, '0'), (array['open', 'closed', 'pending', 'cancelled'])[1 + (n / 50) % 4],
        ((n * 7919) % 10000) / 100.0, timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute', 'order ' || n
      from generate_series(1, ${ROWS}) as n`),
    );
    await platform.db.run(sql.raw(`analyze ${physical}`));
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const captured = captureList(descriptor, QUERY);
    const baseline = await startBareServer(() => bareListAnswer(platform.db, captured));
    const servers = [
      { name: 'platform (dev server)', url: `${platform.url}${path}` },
      { name: 'baseline (node:http + SQL)', url: `${baseline.url}${path}` },
    ] as const;
    try {
      // The same JSON value from both: the platform sends the database's JSON text as it comes
      // (spaces inside records), the baseline its own JSON.stringify.
      const [fromPlatform, fromBaseline] = await Promise.all(
        servers.map(async (server) => {
          const response = await fetch(server.url, { headers: platform.headers });
          const text = await response.text();
          return { text, value: `${response.status} ${JSON.stringify(JSON.parse(text))}` };
        }),
      );
      if (fromPlatform!.value !== fromBaseline!.value) {
        throw new Error(
          `the servers answer differently:\n platform ${fromPlatform!.value.slice(0, 400)}\n baseline ${fromBaseline!.value.slice(0, 400)}`,
        );
      }
      const answer = JSON.parse(fromPlatform!.text) as { total: number; data: unknown[] };
      await fetch(servers[0].url, { headers: platform.headers }).then((response) => response.text());
      const trace = await platform.trace(() => fetch(servers[0].url, { headers: platform.headers }).then((response) => response.text()));
      note(`database: ${platform.database.label}; both servers in this process (pid ${process.pid})`);
      note(
        `table ${physical}: ${ROWS} rows seeded in ${fixed(seedSeconds)} s by one insert … select from generate_series; index (category, status, created)`,
      );
      note(
        `answers equal as JSON (status 200, total ${answer.total}, ${answer.data.length} records; ${Buffer.byteLength(fromPlatform!.text)} bytes from the platform, ${Buffer.byteLength(fromBaseline!.text)} from the baseline)`,
      );
      note(`bare server's page: ${captured.page.text.replace(/\s+/g, ' ')}  params ${JSON.stringify(captured.page.params)}`);
      note(`bare server's count (sent with the page): ${captured.count.text.replace(/\s+/g, ' ')}`);
      note(`the platform ran ${trace.length} statements for one request:`);
      for (const line of describeTrace(trace)) note(`  ${line}`);
      await comparePlatformToBaseline(servers, platform.headers, settings, TARGET_RATIO);
    } finally {
      await baseline.close();
    }
  } finally {
    await platform.close();
  }
}
