// Issue 17: req/s of relation reads through the dev server against the same answers written by hand
// and served by a bare node:http server on the same database in the same run: populate of two levels
// over a page of 100 parents, related filters (forward, forward over many matches sorted by another
// field at a deep page, reverse), a sort on a related field at a deep page, a grouping by a field two
// relations away, and hierarchy walks in a 100k-node tree against the raw recursive CTE: descendants
// to depth 10 of the root (2,046 records) and of a node near the leaves (6), and ancestors of a leaf
// (10). Same autocannon client and rounds as the other throughput benches.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '#shared/db/database.ts';
import { describeTrace, startDataPlatform, APP_SLUG, type DataPlatform } from './data-platform.ts';
import { heading, note } from './report.ts';
import { benchSettings } from './settings.ts';
import { benchCpuProbe } from './cpu-probe.ts';
import { comparePlatformToBaseline } from './compare-servers.ts';

const TARGET_RATIO = 0.8;
const COMPANIES = 100;
const AUTHORS = 10_000;
const POSTS = 100_000;
const NODES = 100_000;

const SCHEMAS = {
  companies: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
    ],
    primaryKey: ['id'],
  },
  authors: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'company_id', type: 'integer' },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['company_id'], reference: { resource: 'companies', fields: ['id'] } }],
    indexes: [{ name: 'by_name', fields: ['name'] }],
  },
  posts: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'title', type: 'string' },
      { name: 'author_id', type: 'integer' },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['author_id'], reference: { resource: 'authors', fields: ['id'] } }],
    indexes: [{ name: 'by_author', fields: ['author_id'] }],
  },
  nodes: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
    ],
    primaryKey: ['id'],
    hierarchy: true,
    graph: { enabled: true, types: [{ name: 'parent', inverse: 'children' }] },
  },
};

/** A bare node:http server answering every request with the JSON text one hand-written statement makes. */
async function startSqlServer(db: Database, statement: SQL): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    db.rows<{ answer: string }>(statement).then(
      (rows) => {
        response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
        response.end(rows[0]!.answer);
      },
      (error: unknown) => {
        console.error('baseline server failed to answer', error);
        response.writeHead(500);
        response.end();
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function seed(platform: DataPlatform): Promise<Record<string, string>> {
  const physical: Record<string, string> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) physical[name] = (await platform.createTable(name, schema)).physical;
  const edges = physical.nodes!.replace(/"$/, '_edges"');
  await platform.db.run(
    sql.raw(`insert into ${physical.companies} (id, name) select n, 'company ' || n from generate_series(1, ${COMPANIES}) n`),
  );
  await platform.db.run(
    sql.raw(
      `insert into ${physical.authors} (id, name, company_id) select n, 'author_' || lpad(n::text, 5, '0'), 1 + n % ${COMPANIES} from generate_series(1, ${AUTHORS}) n`,
    ),
  );
  await platform.db.run(
    sql.raw(
      `insert into ${physical.posts} (id, title, author_id) select n, 'post ' || n, 1 + (n * 7919) % ${AUTHORS} from generate_series(1, ${POSTS}) n`,
    ),
  );
  await platform.db.run(sql.raw(`insert into ${physical.nodes} (id, name) select n, 'node ' || n from generate_series(1, ${NODES}) n`));
  // A binary tree: node n reports to n / 2, so depth 10 below the root holds 2046 records.
  await platform.db.run(
    sql.raw(`insert into ${edges} (from_id, to_id, type) select n, n / 2, 'parent' from generate_series(2, ${NODES}) n`),
  );
  // Vacuumed as autovacuum leaves tables soon after a load, so it does not come by mid-round.
  for (const table of [...Object.values(physical), edges]) await platform.db.run(sql.raw(`vacuum analyze ${table}`));
  return { ...physical, edges };
}

interface Case {
  title: string;
  path: string;
  baseline: (tables: Record<string, string>) => SQL;
  /**
   * The same page asked for without relations, through the platform too: what a related read costs
   * beyond the platform's own per-request work (a ratio near 1 when it takes the plain list's path).
   */
  plainPath?: string;
}

/**
 * A list answer as the records API gives it, written the way a careful hand would: the page (a
 * query selecting `record`, in order, limited) and the total as separate sub-plans of one statement.
 * A window count (`count(*) over ()`) would read every match before the first row and flatter the
 * platform, which plans them apart (issue 15).
 */
function listAnswer(page: string, count: string, pageNumber: number, pageSize: number): SQL {
  return sql.raw(`select json_build_object('data', (select coalesce(json_agg(q.record), '[]') from (${page}) q),
    'total', (${count}), 'page', ${pageNumber}, 'page_size', ${pageSize})::text as answer`);
}

const POST_RECORD = `json_build_object('id', p.id, 'title', p.title, 'author_id', p.author_id)`;

const CASES: Case[] = [
  {
    title: 'populate of two levels (author, then its company) over a page of 100 posts',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?page_size=100&populate=author.company_id`,
    baseline: (t) =>
      listAnswer(
        `select json_build_object('id', p.id, 'title', p.title, 'author_id',
          case when a.id is null then null else json_build_object('id', a.id, 'name', a.name, 'company_id',
            case when c.id is null then null else json_build_object('id', c.id, 'name', c.name) end) end) as record
        from (select * from ${t.posts} order by id limit 100) p
          left join ${t.authors} a on a.id = p.author_id left join ${t.companies} c on c.id = a.company_id
        order by p.id`,
        `select count(*) from ${t.posts}`,
        1,
        100,
      ),
  },
  {
    title: 'a related filter (posts whose author has a given name), sorted, a page of 20',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?author.name=author_00042&_sort=id`,
    // Author 42 is the only author_00042 (ids and names are seeded together).
    plainPath: `/api/apps/${APP_SLUG}/datatables/posts/data/?author_id=42&_sort=id`,
    baseline: (t) => {
      const matches = `from ${t.posts} p join ${t.authors} a on a.id = p.author_id where a.name = 'author_00042'`;
      return listAnswer(`select ${POST_RECORD} as record ${matches} order by p.id limit 20`, `select count(*) ${matches}`, 1, 20);
    },
  },
  {
    title: 'a related filter over about 1,000 posts (the authors of one company), sorted by an unindexed field, page 40',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?author.company_id=7&_sort=-title&page=40&page_size=20`,
    baseline: (t) => {
      const matches = `from ${t.posts} p join ${t.authors} a on a.id = p.author_id where a.company_id = 7`;
      return listAnswer(
        `select ${POST_RECORD} as record ${matches} order by p.title desc, p.id limit 20 offset 780`,
        `select count(*) ${matches}`,
        40,
        20,
      );
    },
  },
  {
    title: "a sort on a related field (the author's name) over all 100,000 posts, page 100",
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?_sort=author.name,id&page=100&page_size=20`,
    baseline: (t) =>
      listAnswer(
        `select ${POST_RECORD} as record from ${t.posts} p left join ${t.authors} a on a.id = p.author_id
        order by a.name, p.id limit 20 offset 1980`,
        `select count(*) from ${t.posts}`,
        100,
        20,
      ),
  },
  {
    title: 'an aggregation grouped by a field two relations away (the company of the author) over all 100,000 posts',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?_aggregate=count(*)&_group_by=author.company_id.name&page_size=20`,
    baseline: (t) => {
      const groups = `from ${t.posts} p left join ${t.authors} a on a.id = p.author_id left join ${t.companies} c on c.id = a.company_id
        group by c.name`;
      return sql.raw(`select json_build_object('data', (select coalesce(json_agg(q.record), '[]') from (
          select json_build_object('author.company_id.name', c.name, 'count', count(*)) as record ${groups} order by c.name limit 20) q),
        'total', (select count(*) from (select 1 ${groups}) g))::text as answer`);
    },
  },
  {
    title: 'a reverse related filter (authors with a post of a given title, an unindexed field), sorted, a page of 20',
    path: `/api/apps/${APP_SLUG}/datatables/authors/data/?posts.title=post%204242&_sort=id`,
    baseline: (t) => {
      const matches = `from ${t.authors} a where exists (select 1 from ${t.posts} p where p.author_id = a.id and p.title = 'post 4242')`;
      return listAnswer(
        `select json_build_object('id', a.id, 'name', a.name, 'company_id', a.company_id) as record ${matches} order by a.id limit 20`,
        `select count(*) ${matches}`,
        1,
        20,
      );
    },
  },
  {
    title: `descendants to depth 10 of the root of a ${NODES / 1000}k-node hierarchy`,
    path: `/api/apps/${APP_SLUG}/datatables/nodes/data/1/?include=descendants&depth=10`,
    baseline: (t) => walkAnswer(t, 1, 'descendants'),
  },
  {
    title: 'descendants to depth 10 of a node near the leaves (6 records): a cheap walk, where the per-request work shows',
    path: `/api/apps/${APP_SLUG}/datatables/nodes/data/20000/?include=descendants&depth=10`,
    baseline: (t) => walkAnswer(t, 20_000, 'descendants'),
  },
  {
    title: 'ancestors to depth 10 of a leaf (10 records, closest first)',
    path: `/api/apps/${APP_SLUG}/datatables/nodes/data/99999/?include=ancestors&depth=10`,
    baseline: (t) => walkAnswer(t, 99_999, 'ancestors'),
  },
];

/**
 * A hierarchy answer by the raw recursive CTE: `{data, children}` for descendants (the edges into
 * the record, walked down), `{data, parent}` for ancestors (the edges out of it, walked up).
 */
function walkAnswer(t: Record<string, string>, id: number, direction: 'descendants' | 'ancestors'): SQL {
  const [near, far, label] = direction === 'descendants' ? ['to_id', 'from_id', 'children'] : ['from_id', 'to_id', 'parent'];
  return sql.raw(`with recursive walk(id, depth) as (
      select e.${far}, 1 from ${t.edges} e where e.${near} = ${id} and e.type = 'parent'
      union all
      select e.${far}, w.depth + 1 from walk w join ${t.edges} e on e.${near} = w.id and e.type = 'parent' where w.depth < 10)
    select json_build_object('data', (select json_build_object('id', n.id, 'name', n.name) from ${t.nodes} n where n.id = ${id}),
      '${label}', (select coalesce(json_agg(json_build_object('id', n.id, 'name', n.name, '_depth', w.depth, '_relationship_type', 'parent') order by w.depth, n.id), '[]')
        from walk w join ${t.nodes} n on n.id = w.id))::text as answer`);
}

/** A list answer (`data` and `total`; records or groups) or a hierarchy answer (`data` and `children`). */
interface ListLike {
  data: Array<Record<string, unknown>> | { id: unknown };
  total?: unknown;
  children?: Array<{ id: unknown; _depth: unknown }>;
  parent?: Array<{ id: unknown; _depth: unknown }>;
}

/** What two answers must share to hold the same records: the ids in order and the total, or the walk. */
function sameRecordsKey(answer: ListLike): { key: string; records: number } {
  const rows = Array.isArray(answer.data) ? answer.data : (answer.children ?? answer.parent ?? []);
  const walk = Array.isArray(answer.data) ? '' : `${String(answer.data.id)}:`;
  // A record by its id; a group (no id) by its members, in one order of keys.
  const keys = rows.map((row) => row.id ?? Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
  return { key: `${walk}${JSON.stringify(keys)} total ${String(answer.total)}`, records: rows.length };
}

/** BENCH_RELATIONS_CASES (e.g. `1,4`, counted from 1 in the order above) runs only those cases, for a quick look. */
function chosenCases(): Case[] {
  const raw = process.env.BENCH_RELATIONS_CASES;
  if (raw === undefined || raw === '') return CASES;
  const numbers = new Set(raw.split(',').map((item) => Number(item.trim())));
  return CASES.filter((_, index) => numbers.has(index + 1));
}

export async function benchRelations(): Promise<void> {
  const settings = benchSettings();
  heading('relations: populate, related filters and descendants through the dev server vs hand-written SQL on bare node:http');
  const platform = await startDataPlatform();
  const cpu = benchCpuProbe(platform.database);
  try {
    const started = performance.now();
    const tables = await seed(platform);
    note(
      `database: ${platform.database.label}; ${COMPANIES} companies, ${AUTHORS} authors, ${POSTS} posts, ${NODES} nodes seeded in ${Math.round(performance.now() - started)} ms`,
    );
    for (const entry of chosenCases()) {
      heading(`relations: ${entry.title}`);
      const baseline = await startSqlServer(platform.db, entry.baseline(tables));
      const servers = [
        { name: 'platform (dev server)', url: `${platform.url}${entry.path}` },
        { name: 'baseline (node:http + SQL)', url: baseline.url },
      ] as const;
      try {
        // Not byte-equal (the baseline leaves out fields the platform answers, such as the related
        // record's own fields), but the same records in the same order and the same total.
        const answers = await Promise.all(
          servers.map(async (server) => {
            const response = await fetch(server.url, { headers: platform.headers });
            const text = await response.text();
            if (response.status !== 200) throw new Error(`${server.name}: ${response.status} ${text}`);
            return { bytes: Buffer.byteLength(text), ...sameRecordsKey(JSON.parse(text) as ListLike) };
          }),
        );
        if (answers[0]!.key !== answers[1]!.key)
          throw new Error(`the answers differ:\n platform ${answers[0]!.key.slice(0, 300)}\n baseline ${answers[1]!.key.slice(0, 300)}`);
        note(
          `answers: ${answers[0]!.records} records, the same ids and total; platform ${answers[0]!.bytes} bytes, baseline ${answers[1]!.bytes} bytes`,
        );
        const trace = await platform.trace(() => fetch(servers[0].url, { headers: platform.headers }).then((response) => response.text()));
        note(`the platform ran ${trace.length} statements for one request:`);
        for (const line of describeTrace(trace)) note(`  ${line}`);
        await comparePlatformToBaseline(servers, platform.headers, settings, TARGET_RATIO, cpu);
        if (entry.plainPath !== undefined) {
          note('the same page without relations, both through the platform:');
          await comparePlatformToBaseline(
            [
              { name: 'platform, related filter', url: servers[0].url },
              { name: 'platform, plain filter', url: `${platform.url}${entry.plainPath}` },
            ],
            platform.headers,
            settings,
            TARGET_RATIO,
            cpu,
          );
        }
      } finally {
        await baseline.close();
      }
    }
  } finally {
    await platform.close();
  }
}
