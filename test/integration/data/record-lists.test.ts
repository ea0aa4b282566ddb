// Record lists after issue 15: page and total planned apart (EXPLAIN of the one list statement shows
// the page walking the sort column's index and no window), `_count=exact|planned|none`, and the one
// answer shape that plain lists, searches and aggregations share, over HTTP on a real table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { explainPlan, nodesOf, type PlanNode } from '#test/support/query-plans.ts';
import { tenantBySlug } from '#shared/tenancy/resolve-tenant.ts';
import { loadTableDescriptor } from '#functions/data/tables/table-lookup.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { listSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery } from '#functions/data/records/query/list-query.ts';

const ROWS = 20_000;
const ITEMS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'category', type: 'string', constraints: { required: true } },
    { name: 'status', type: 'string', constraints: { required: true } },
    { name: 'price', type: 'number' },
    { name: 'created', type: 'datetime', constraints: { required: true } },
    { name: 'title', type: 'string' },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['title'] },
  ],
  primaryKey: ['id'],
  indexes: [
    { name: 'category', fields: ['category'] },
    { name: 'price', fields: ['price'] },
    { name: 'category_status_created', fields: ['category', 'status', 'created'] },
  ],
};
const DATA = '/api/apps/shop/datatables/items/data/';
const dialect = new PgDialect();

describe('record lists: page and total apart, _count, one answer shape', () => {
  let app: TestApp;
  let admin: string;
  let headers: Record<string, string>;
  let descriptor: TableDescriptor;
  const call = (path: string) => app.request('GET', path, { token: admin, headers });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = await createSite(app, admin, 'Lists Site');
    headers = site.headers;
    const define = (path: string, body?: unknown) => app.request('POST', path, { token: admin, body, headers });
    expect((await define('/api/apps/', { name: 'Shop' })).status).toBe(201);
    expect((await define('/api/apps/shop/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    expect((await define('/api/apps/shop/datasources/main/datatables/', { name: 'items', json_schema: ITEMS })).status).toBe(201);
    expect((await define('/api/apps/shop/datatables/items/materialize/')).status).toBe(200);
    const tenant = (await tenantBySlug(app.runtime.db, site.slug))!;
    descriptor = (await loadTableDescriptor(app.runtime.db, tenant, 'shop', 'items')).descriptor;
    const physical = `"${descriptor.schemaName}"."${descriptor.tableName}"`;
    // Ten categories, prices spread evenly over 0–10,000, four statuses: category c3 with
    // price > 9,000 is 1% of the rows, c3 with status open 2.5%.
    await app.runtime.db.run(
      sql.raw(`insert into ${physical} (id, category, status, price, created, title)
        select n, 'c' || (n % 10), (array['open', 'closed', 'pending', 'cancelled'])[1 + (n / 10) % 4],
          ((n * 7919) % 10000)::float8, timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute',
          case when n % 100 = 0 then 'red lamp ' || n else 'item ' || n end
        from generate_series(1, ${ROWS}) as n`),
    );
    await app.runtime.db.run(sql.raw(`analyze ${physical}`));
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  async function explain(query: string): Promise<PlanNode[]> {
    const statement = listSql(descriptor, parseListQuery(descriptor, new URLSearchParams(query)));
    return nodesOf(await explainPlan(app.runtime.db, statement));
  }

  it.each([
    ['equality and a range on separately indexed columns, sorted by the range column', 'category=c3&price__gt=9000&_sort=-price', 'price'],
    ['equality and sort matching one composite index', 'category=c3&status=open&_sort=-created', 'category_status_created'],
    ['a deeper page of the composite shape', 'category=c3&status=open&_sort=-created&page=6&page_size=20', 'category_status_created'],
  ])('plans the page of %s on the sort index, the count apart, no window and no full sort', async (_shape, query, index) => {
    const nodes = await explain(query);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('WindowAgg');
    // The primary-key tie-breaker may only add an incremental sort within equal sort values.
    expect(nodes.filter((node) => node['Node Type'] === 'Sort')).toEqual([]);
    const scans = nodes.filter((node) => (node['Index Name'] ?? '').includes(index));
    expect(scans.length, JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']]))).toBeGreaterThan(0);
    // The count is a subplan of its own: an aggregate beside the page's limit.
    expect(nodes.some((node) => node['Node Type'] === 'Aggregate' && node['Parent Relationship'] === 'InitPlan')).toBe(true);
  });

  it('answers the spec shape with the exact total by default and for _count=exact', async () => {
    const plain = await call(`${DATA}?category=c3&price__gt=9000&_sort=-price&page_size=5`);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual(['data', 'total', 'page', 'page_size']);
    expect(plain.body).toMatchObject({ total: 200, page: 1, page_size: 5 });
    const prices = plain.body.data.map((record: { price: number }) => record.price);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    const exact = await call(`${DATA}?category=c3&price__gt=9000&_sort=-price&page_size=5&_count=exact`);
    expect(exact.body).toEqual(plain.body);
  });

  it('counts the matches only when the page cannot tell the total, and answers it exactly either way', async () => {
    const physical = `"${descriptor.schemaName}"."${descriptor.tableName}"`;
    const counted = async (where: string) =>
      Number((await app.runtime.db.rows<{ n: string }>(sql.raw(`select count(*) as n from ${physical} where ${where}`)))[0]!.n);
    const few = await counted(`category = 'c3' and price > 9950`);
    expect(few).toBeGreaterThan(2);
    expect(few).toBeLessThan(20);
    const SMALL = 'category=c3&price__gt=9950';
    // [query, total, whether the count had to run]
    const cases: Array<[string, number, boolean]> = [
      [SMALL, few, false],
      [`${SMALL}&page_size=${few}`, few, false],
      [`${SMALL}&page_size=${few - 1}`, few, true],
      [`${SMALL}&page=2&page_size=${few - 1}`, few, false],
      [`${SMALL}&page=2&page_size=${few}`, few, true],
      [`${SMALL}&offset=${few - 2}&limit=5`, few, false],
      ['category=none', 0, false],
      ['category=c3&price__gt=9000&page_size=5', await counted(`category = 'c3' and price > 9000`), true],
      ['_aggregate=count(*)&_group_by=category', 10, false],
    ];
    for (const [query, total, countRuns] of cases) {
      const answer = await call(`${DATA}?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body.total, query).toBe(total);
      const statement = listSql(descriptor, parseListQuery(descriptor, new URLSearchParams(query)));
      const count = nodesOf(await explainPlan(app.runtime.db, statement, { analyze: true })).find(
        (node) => node['Parent Relationship'] === 'InitPlan' && node['Node Type'] === 'Aggregate',
      );
      expect((count?.['Actual Loops'] ?? 0) > 0, `count ran for ${query}`).toBe(countRuns);
    }
  });

  it('keeps a generic plan for the prepared statement of a first page', async () => {
    // Prepared as the drivers prepare it (one connection, run after run): with `offset $n` PostgreSQL
    // prices the generic plan as if a tenth of the matches were wanted and plans every run anew.
    const plansOf = (query: string) =>
      app.runtime.db.transaction(async (tx) => {
        const { sql: text, params } = dialect.sqlToQuery(listSql(descriptor, parseListQuery(descriptor, new URLSearchParams(query))));
        await tx.run(sql.raw(`prepare list_probe as ${text}`));
        // Untyped literals, which take the types PostgreSQL inferred for the prepared statement.
        const values = params.map((param) => `'${String(param).replaceAll("'", "''")}'`).join(', ');
        for (let run = 0; run < 8; run += 1) await tx.rows(sql.raw(`execute list_probe(${values})`));
        const [plans] = await tx.rows<{ generic: number; custom: number }>(
          sql`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = 'list_probe'`,
        );
        await tx.run(sql.raw('deallocate list_probe'));
        return { text, plans: plans! };
      });
    for (const query of ['category=c3&status=open&_sort=-created', 'category=c3&price__gt=9000&_sort=-price']) {
      const { text, plans } = await plansOf(query);
      expect(text, query).toMatch(/offset 0\b/);
      expect(plans.generic, query).toBeGreaterThan(0);
    }
    // Deeper pages keep the offset a parameter: a literal per page would prepare a text per page.
    expect((await plansOf('category=c3&status=open&_sort=-created&page=3')).text).toMatch(/offset \$\d+/);
  });

  it('answers _count=planned with the planner estimate, flagged, and exact when the page shows the end', async () => {
    const planned = await call(`${DATA}?category=c3&_sort=-price&page_size=5&_count=planned`);
    expect(planned.status).toBe(200);
    expect(planned.body.total_is_estimate).toBe(true);
    expect(planned.body.total).toBeGreaterThan(1_000);
    expect(planned.body.total).toBeLessThan(4_000);
    expect(planned.body.data).toHaveLength(5);
    const small = await call(`${DATA}?category=c3&price__gt=9990&_count=planned`);
    expect(small.body).toMatchObject({ total: small.body.data.length, total_is_estimate: false });
  });

  it('answers _count=none without a total, with next while a further row exists', async () => {
    const first = await call(`${DATA}?category=c3&status=open&_sort=-created&page_size=200&_count=none`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: null, page: 1, page_size: 200 });
    expect(first.body.data).toHaveLength(200);
    expect(first.body.next).toMatch(/[?&]page=2(&|$)/);
    expect(first.body.next).toContain('_count=none');
    const last = await call(`${DATA}?category=c3&status=open&_sort=-created&page_size=200&page=3&_count=none`);
    expect(last.body.data).toHaveLength(100);
    expect(last.body.next).toBeNull();
    const offset = await call(`${DATA}?category=c3&status=open&limit=250&offset=100&_count=none`);
    expect(offset.body.data).toHaveLength(250);
    expect(offset.body.next).toMatch(/[?&]offset=350(&|$)/);
  });

  it('shapes searches and aggregations the same way under every _count', async () => {
    const searched = await call(`${DATA}?search=lamp&page_size=3&_count=none`);
    expect(searched.body).toMatchObject({ total: null, page: 1, page_size: 3 });
    expect(searched.body.data).toHaveLength(3);
    expect(searched.body.data[0].rank).toBeGreaterThan(0);
    expect(searched.body.next).toMatch(/page=2/);
    const counted = await call(`${DATA}?search=lamp&page_size=3`);
    expect(counted.body.total).toBe(ROWS / 100);
    const groups = await call(`${DATA}?_aggregate=count(*)&_group_by=category&_sort=category&page_size=4&_count=none`);
    expect(groups.body.data).toEqual(['c0', 'c1', 'c2', 'c3'].map((category) => ({ category, count: ROWS / 10 })));
    expect(groups.body.total).toBeNull();
    expect(groups.body.next).toMatch(/page=2/);
    const all = await call(`${DATA}?_aggregate=count(*)&_group_by=category`);
    expect(all.body).toEqual({ data: expect.any(Array), total: 10 });
    const whole = await call(`${DATA}?_aggregate=count(*),max(price)&category=c1`);
    expect(whole.body).toEqual({ data: [{ count: ROWS / 10, max_price: expect.any(Number) }], total: 1 });
    const pastWhole = await call(`${DATA}?_aggregate=count(*)&page=2&_count=planned`);
    expect(pastWhole.body).toEqual({ data: [], total: 1, total_is_estimate: true });
    const plannedGroups = await call(`${DATA}?_aggregate=count(*)&_group_by=status&_count=planned`);
    expect(plannedGroups.body).toMatchObject({ total: 4, total_is_estimate: false });
  });

  it('refuses an unknown or repeated _count with a 400 naming it', async () => {
    for (const value of ['maybe', '', 'EXACT', '__proto__', 'exact;drop', 'x'.repeat(10_000)]) {
      const answer = await call(`${DATA}?_count=${encodeURIComponent(value)}`);
      expect(answer.status, value.slice(0, 20)).toBe(400);
      expect(answer.body.details).toEqual({ _count: [expect.stringContaining('exact, planned, none')] });
    }
    const twice = await call(`${DATA}?_count=none&_count=exact`);
    expect(twice.status).toBe(400);
    expect(Object.keys(twice.body.details)).toEqual(['_count']);
  });

  it('answers the same list through the remembered table as the first time, for every _count', async () => {
    for (const count of ['exact', 'planned', 'none']) {
      const path = `${DATA}?category=c5&price__lt=500&_sort=price&page=2&page_size=7&_count=${count}`;
      const first = await call(path);
      const second = await call(path);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
    }
  });
});
