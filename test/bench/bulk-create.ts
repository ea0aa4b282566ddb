// Issue 4 (b): rows/s of creating 10k records with one POST through the dev server (validation,
// one INSERT … SELECT FROM jsonb_array_elements … RETURNING, the records answered back) against a
// raw `INSERT … SELECT … FROM jsonb_to_recordset($1::jsonb)` of the same rows into the same table
// (no RETURNING). The table is truncated before every run; runs alternate order; medians compared.
import { sql } from 'drizzle-orm';
import { startDataPlatform, APP_SLUG } from './data-platform.ts';
import { ORDERS_SCHEMA } from './data-list.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';

const ROWS = 10_000;
const RUNS = 5;
const TARGET_RATIO = 0.5;
const TABLE = 'bulk_orders';
const STATUSES = ['open', 'closed', 'pending', 'cancelled'];

function records(): Record<string, unknown>[] {
  return Array.from({ length: ROWS }, (_, index) => ({
    category: `c${String(index % 50).padStart(2, '0')}`,
    status: STATUSES[index % 4],
    price: ((index * 7919) % 10000) / 100,
    created: new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(),
    title: `order ${index}`,
  }));
}

export async function benchBulkCreate(): Promise<void> {
  const settings = benchSettings();
  const path = `/api/apps/${APP_SLUG}/datatables/${TABLE}/data/`;
  heading(`bulk-create: POST ${path} with ${ROWS / 1000}k records vs raw INSERT … SELECT FROM jsonb_to_recordset`);
  const platform = await startDataPlatform();
  try {
    const { physical } = await platform.createTable(TABLE, ORDERS_SCHEMA);
    const body = JSON.stringify(records());
    const rawInsert = sql`insert into ${sql.raw(physical)} (category, status, price, created, title)
      select category, status, price, created, title
      from jsonb_to_recordset(${body}::jsonb) as x(category text, status text, price double precision, created timestamptz, title text)`;
    const truncate = sql.raw(`truncate ${physical} restart identity`);
    const count = async () => Number((await platform.db.rows<{ n: number }>(sql.raw(`select count(*)::int as n from ${physical}`)))[0]!.n);

    const runPlatform = async () => {
      const started = performance.now();
      const response = await fetch(`${platform.url}${path}`, {
        method: 'POST',
        headers: { ...platform.headers, 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      const seconds = (performance.now() - started) / 1000;
      if (response.status !== 201) throw new Error(`platform: ${response.status} ${text.slice(0, 400)}`);
      return { seconds, answerBytes: Buffer.byteLength(text) };
    };
    const runBaseline = async () => {
      const started = performance.now();
      await platform.db.run(rawInsert);
      return { seconds: (performance.now() - started) / 1000, answerBytes: 0 };
    };
    const sides = [
      { name: 'platform (dev server POST)', run: runPlatform },
      { name: 'baseline (raw jsonb_to_recordset insert)', run: runBaseline },
    ] as const;

    note(`database: ${platform.database.label}; the dev server in this process (pid ${process.pid}), client: fetch in the same process`);
    note(
      `table ${physical} (same schema and index as data-list); body ${ROWS} records, ${body.length} bytes (${fixed(body.length / 1024 / 1024, 2)} MB of the 6 MB cap)`,
    );
    // One warm-up each (JIT, plan caches), then measured runs into an emptied table, alternating order.
    let answerBytes = 0;
    for (const side of sides) {
      await platform.db.run(truncate);
      const result = await side.run();
      answerBytes = Math.max(answerBytes, result.answerBytes);
      if ((await count()) !== ROWS) throw new Error(`${side.name} did not insert ${ROWS} rows`);
    }
    note(`platform answer: 201 with all ${ROWS} records, ${answerBytes} bytes`);
    const runs = Math.max(RUNS, settings.rounds);
    note(`1 warm-up run each, then ${runs} runs per side into a truncated table, order alternating; wall time of the request / statement`);
    const seconds = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    for (let round = 0; round < runs; round += 1) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        await platform.db.run(truncate);
        seconds.get(side.name)!.push((await side.run()).seconds);
        if ((await count()) !== ROWS) throw new Error(`${side.name} did not insert ${ROWS} rows`);
      }
    }
    const rows: string[][] = [];
    for (const side of sides) {
      const list = seconds.get(side.name)!;
      rows.push([
        side.name,
        list.map((value) => fixed(value * 1000, 0)).join(' '),
        fixed(median(list) * 1000, 0),
        fixed(ROWS / median(list), 0),
      ]);
    }
    table(['side', 'runs (ms)', 'median ms', 'rows/s (median)'], rows);
    const platformSeconds = median(seconds.get(sides[0].name)!);
    const baselineSeconds = median(seconds.get(sides[1].name)!);
    note(`ratio platform / baseline (rows/s): ${ratioAgainst(baselineSeconds / platformSeconds, TARGET_RATIO, true)}`);
    note(
      `the platform adds ${fixed((platformSeconds - baselineSeconds) * 1000, 0)} ms per ${ROWS / 1000}k rows (${fixed(((platformSeconds - baselineSeconds) * 1e6) / ROWS, 2)} µs per row)`,
    );
  } finally {
    await platform.close();
  }
}
