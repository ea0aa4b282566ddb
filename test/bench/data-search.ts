// Issue 4 (c): latency of `?search=<word>` over 100k rows whose text comes from a small vocabulary,
// with the stored tsvector and its GIN index: sequential requests through the dev server (client in
// a child process) against the statement the platform issues, run directly on the same database.
import { sql } from 'drizzle-orm';
import { listSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery } from '#functions/data/records/query/list-query.ts';
import { capture, describeTrace, runSequential, percentile, startDataPlatform, APP_SLUG } from './data-platform.ts';
import { fixed, heading, note, table } from './report.ts';

const ROWS = 100_000;
const WORDS_PER_ROW = 8;
const REQUESTS = 400;
const MAX_SECONDS = 20;
const TABLE = 'articles';

const SYLLABLES = [
  'ba',
  'ke',
  'mi',
  'no',
  'tu',
  'ra',
  'se',
  'li',
  'po',
  'da',
  'fe',
  'gi',
  'ho',
  'ju',
  'la',
  'me',
  'ni',
  'qo',
  'ru',
  'sa',
  'te',
  'vi',
  'wo',
  'xu',
  'zy',
];
/** 500 two-syllable words: each appears in about 1.6 % of rows. */
const VOCABULARY = SYLLABLES.flatMap((first) => SYLLABLES.map((second) => first + second)).slice(0, 500);
const WORD = VOCABULARY[123]!;

const SCHEMA = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'title', type: 'string' },
    { name: 'body', type: 'string' },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['title', 'body'] },
  ],
  primaryKey: ['id'],
};

export async function benchDataSearch(): Promise<void> {
  const query = `search=${WORD}`;
  const path = `/api/apps/${APP_SLUG}/datatables/${TABLE}/data/?${query}`;
  heading(`data-search: GET ${path} over ${ROWS / 1000}k rows, sequential, dev server vs the same statement run directly`);
  const platform = await startDataPlatform();
  try {
    const { physical, descriptor } = await platform.createTable(TABLE, SCHEMA);
    const seedStarted = performance.now();
    await platform.db.run(sql`
      insert into ${sql.raw(physical)} (title, body)
      select 'article ' || n,
        (select string_agg((string_to_array(${VOCABULARY.join(' ')}::text, ' '))[1 + abs(hashint4(n * ${WORDS_PER_ROW} + k)) % ${VOCABULARY.length}], ' ')
         from generate_series(1, ${WORDS_PER_ROW}) as k)
      from generate_series(1, ${ROWS}) as n`);
    await platform.db.run(sql.raw(`analyze ${physical}`));
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const captured = capture(listSql(descriptor, parseListQuery(descriptor, [...new URLSearchParams(query)])));
    const check = await platform.call('GET', path);
    if (check.status !== 200) throw new Error(`platform: ${check.status} ${JSON.stringify(check.body).slice(0, 400)}`);
    // The statement answers `<total>,<rows read>,<data>` (compile.ts listSql).
    const [direct] = await platform.db.rows<{ answer: string }>(captured.statement);
    if (Number(direct!.answer.split(',')[0]) !== check.body.total) throw new Error('the platform and the statement disagree');
    await platform.call('GET', path);
    const trace = await platform.trace(() => platform.call('GET', path));
    note(`database: ${platform.database.label}; dev server in this process (pid ${process.pid}), client in a child process`);
    note(
      `table ${physical}: ${ROWS} rows of ${WORDS_PER_ROW} words from a ${VOCABULARY.length}-word vocabulary, seeded in ${fixed(seedSeconds)} s by one statement; stored tsvector + GIN`,
    );
    note(`"${WORD}" matches ${check.body.total} rows; page of ${check.body.data.length} ranked records, ${check.bytes} bytes`);
    note(`statement: ${captured.text.replace(/\s+/g, ' ')}  params ${JSON.stringify(captured.params)}`);
    note(`the platform ran ${trace.length} statements for one request:`);
    for (const line of describeTrace(trace)) note(`  ${line}`);

    const platformLatencies = await runSequential({
      url: `${platform.url}${path}`,
      headers: platform.headers,
      warmup: 20,
      requests: REQUESTS,
      maxSeconds: MAX_SECONDS,
    });
    for (let index = 0; index < 20; index += 1) await platform.db.rows(captured.statement);
    const directLatencies: number[] = [];
    const deadline = performance.now() + MAX_SECONDS * 1000;
    while (directLatencies.length < REQUESTS && performance.now() < deadline) {
      const started = performance.now();
      await platform.db.rows(captured.statement);
      directLatencies.push(performance.now() - started);
    }
    note(`20 warm-up requests each, then up to ${REQUESTS} sequential (≤ ${MAX_SECONDS} s)`);
    const row = (name: string, values: number[]) => [
      name,
      String(values.length),
      fixed(percentile(values, 0.5), 2),
      fixed(percentile(values, 0.95), 2),
      fixed(percentile(values, 0.99), 2),
    ];
    table(
      ['side', 'requests', 'p50 ms', 'p95 ms', 'p99 ms'],
      [row('platform (dev server, HTTP)', platformLatencies), row('statement directly (db.rows)', directLatencies)],
    );
    const p50 = percentile(platformLatencies, 0.5) - percentile(directLatencies, 0.5);
    note(
      `ratio of p50 latencies platform / direct: ${fixed(percentile(platformLatencies, 0.5) / percentile(directLatencies, 0.5), 2)}; the platform adds ${fixed(p50, 2)} ms at p50`,
    );
  } finally {
    await platform.close();
  }
}
