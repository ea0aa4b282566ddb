// Issue 17: req/s of relation reads through the dev server against the same answers written by hand
// and served by a bare node:http server on the same database in the same run: populate of two levels
// over a page of 100 parents, a related filter forward and reverse, and descendants to depth 10 in a 100k-node hierarchy
// against the raw recursive CTE. Same autocannon client and rounds as the other throughput benches.
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

const CASES: Case[] = [
  {
    title: 'populate of two levels (author, then its company) over a page of 100 posts',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?page_size=100&populate=author.company_id`,
    baseline: (t) =>
      sql.raw(`select json_build_object('data', coalesce(json_agg(q.post order by q.id), '[]'), 'total', max(q.total), 'page', 1, 'page_size', 100)::text as answer
      from (select p.id, count(*) over () as total, json_build_object('id', p.id, 'title', p.title, 'author_id',
          case when a.id is null then null else json_build_object('id', a.id, 'name', a.name, 'company_id',
            case when c.id is null then null else json_build_object('id', c.id, 'name', c.name) end) end) as post
        from ${t.posts} p left join ${t.authors} a on a.id = p.author_id left join ${t.companies} c on c.id = a.company_id
        order by p.id limit 100) q`),
  },
  {
    title: 'a related filter (posts whose author has a given name), sorted, a page of 20',
    path: `/api/apps/${APP_SLUG}/datatables/posts/data/?author.name=author_00042&_sort=id`,
    // Author 42 is the only author_00042 (ids and names are seeded together).
    plainPath: `/api/apps/${APP_SLUG}/datatables/posts/data/?author_id=42&_sort=id`,
    baseline: (t) =>
      sql.raw(`select json_build_object('data', coalesce(json_agg(q.post order by q.id), '[]'), 'total', coalesce(max(q.total), 0), 'page', 1, 'page_size', 20)::text as answer
      from (select p.id, count(*) over () as total, json_build_object('id', p.id, 'title', p.title, 'author_id', p.author_id) as post
        from ${t.posts} p join ${t.authors} a on a.id = p.author_id where a.name = 'author_00042' order by p.id limit 20) q`),
  },
  {
    title: 'a reverse related filter (authors with a post of a given title, an unindexed field), sorted, a page of 20',
    path: `/api/apps/${APP_SLUG}/datatables/authors/data/?posts.title=post%204242&_sort=id`,
    baseline: (t) =>
      sql.raw(`select json_build_object('data', coalesce(json_agg(q.author order by q.id), '[]'), 'total', coalesce(max(q.total), 0), 'page', 1, 'page_size', 20)::text as answer
      from (select a.id, count(*) over () as total, json_build_object('id', a.id, 'name', a.name, 'company_id', a.company_id) as author
        from ${t.authors} a where exists (select 1 from ${t.posts} p where p.author_id = a.id and p.title = 'post 4242') order by a.id limit 20) q`),
  },
  {
    title: `descendants to depth 10 of the root of a ${NODES / 1000}k-node hierarchy`,
    path: `/api/apps/${APP_SLUG}/datatables/nodes/data/1/?include=descendants&depth=10`,
    baseline: (t) =>
      sql.raw(`with recursive walk(id, depth) as (
        select e.from_id, 1 from ${t.edges} e where e.to_id = 1 and e.type = 'parent'
        union all
        select e.from_id, w.depth + 1 from walk w join ${t.edges} e on e.to_id = w.id and e.type = 'parent' where w.depth < 10)
      select json_build_object('data', (select json_build_object('id', n.id, 'name', n.name) from ${t.nodes} n where n.id = 1),
        'children', (select coalesce(json_agg(json_build_object('id', n.id, 'name', n.name, '_depth', w.depth, '_relationship_type', 'parent') order by w.depth, n.id), '[]')
          from walk w join ${t.nodes} n on n.id = w.id))::text as answer`),
  },
];

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
    for (const entry of CASES) {
      heading(`relations: ${entry.title}`);
      const baseline = await startSqlServer(platform.db, entry.baseline(tables));
      const servers = [
        { name: 'platform (dev server)', url: `${platform.url}${entry.path}` },
        { name: 'baseline (node:http + SQL)', url: baseline.url },
      ] as const;
      try {
        // Not byte-equal (the baseline leaves out fields the platform answers, such as total on a record),
        // but the same records: the sizes are printed so a wrong or empty answer shows.
        const sizes = await Promise.all(
          servers.map(async (server) => {
            const response = await fetch(server.url, { headers: platform.headers });
            if (response.status !== 200) throw new Error(`${server.name}: ${response.status} ${await response.text()}`);
            return Buffer.byteLength(await response.text());
          }),
        );
        note(`answers: platform ${sizes[0]} bytes, baseline ${sizes[1]} bytes`);
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
