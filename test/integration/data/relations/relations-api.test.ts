// Related filters, related sorting and populate over the records API, on tables defined through the
// API: forward, reverse and many-to-many relations, nesting, the per-relation controls, the refusals,
// and the statement count of a nested populate (one statement per level, never one per row).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import { renderStatement } from '#shared/db/render-sql.ts';
import { sql } from '#shared/db/sql.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { statementsDuring } from '#test/support/statement-capture.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { seedBlog } from '#test/support/relation-tables.ts';

type Rec = Record<string, any>; // `any`: answers are read field by field

describe('relations: related filters, sorting and populate', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const list = (table: string, query: string) => call('GET', `/api/apps/blog/datatables/${table}/data/?${query}`);
  const ids = (answer: { body: { data: Rec[] } }) => answer.body.data.map((record) => record.id);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Relations Site')).headers;
    await seedBlog(call);
  });
  afterAll(async () => {
    await app.close();
  });

  it('filters on a forward relation by field name and by the name without _id', async () => {
    expect(ids(await list('posts', 'author_id.name=Ann'))).toEqual([10]);
    expect(ids(await list('posts', 'author.name__in=Ann,Bob&_sort=id'))).toEqual([10, 11]);
    expect(ids(await list('posts', 'author.company_id.name=Globex'))).toEqual([11]);
  });

  it('filters on reverse and many-to-many relations', async () => {
    expect(ids(await list('posts', 'comments.rating__gte=4&_sort=id'))).toEqual([10, 11]);
    expect(ids(await list('authors', 'posts.title__icontains=DIVE'))).toEqual([2]);
    expect(ids(await list('posts', 'tags.label=red'))).toEqual([10]);
    expect(ids(await list('tags', 'posts.title=Deep%20dive'))).toEqual([2]);
    expect(ids(await list('comments', 'post.author.name=Ann&_sort=id'))).toEqual([100, 101]);
    // A related filter with the negation rules of the base table: posts with no comment rated 2.
    expect((await list('posts', 'comments.rating__ne=2&_sort=id')).body.total).toBe(2);
  });

  it('sorts by a related field over to-one relations and refuses a to-many one', async () => {
    // Descending puts nulls first: 12 (its author Zed is soft-deleted, so hidden) and 13 (no author).
    expect(ids(await list('posts', '_sort=-author.name,id'))).toEqual([12, 13, 11, 10]);
    expect(ids(await list('comments', 'id__lt=1000&_sort=post.author.name,-id'))).toEqual([101, 100, 102]);
    const toMany = await list('posts', '_sort=comments.rating');
    expect(toMany.status).toBe(400);
    expect(toMany.body.errors ?? toMany.body.details).toHaveProperty('_sort');
    // Two hops, and two related terms at once: Zed is hidden, so his company is too.
    expect(ids(await list('posts', '_sort=author.company_id.name,-id'))).toEqual([10, 11, 13, 12]);
    expect(ids(await list('posts', '_sort=-author.company_id.name,author.name,id'))).toEqual([12, 13, 11, 10]);
  });

  /** The plan of the one list statement a request on posts sends (the one naming companies). */
  async function planOfPostsList(query: string): Promise<{ body: Rec; plan: string[] }> {
    const db = app.runtime.db;
    const dialect = new PgDialect();
    const { result: answer, statements } = await statementsDuring(db, () => list('posts', query));
    expect(answer.status).toBe(200);
    const seen = statements.filter((statement) => renderStatement(statement, dialect).sql.includes('"blog_companies"'));
    expect(seen).toHaveLength(1);
    const plan = (await db.rows<{ 'QUERY PLAN': string }>(sql`explain (costs off) ${seen[0]!}`)).map((row) => row['QUERY PLAN']);
    return { body: answer.body, plan };
  }

  /** The lines of a plan that read authors or companies inside a sub-plan (run per row). */
  function relatedReadsInSubPlans(plan: string[]): string[] {
    const readsRelated = (line: string) => / on blog_(authors|companies)\b/.test(line);
    expect(plan.some(readsRelated)).toBe(true);
    return plan
      .flatMap((line, index) => {
        if (!/SubPlan/.test(line)) return [];
        const depth = line.search(/\S/);
        const end = plan.findIndex((next, after) => after > index && next.search(/\S/) <= depth);
        return plan.slice(index, end === -1 ? undefined : end);
      })
      .filter(readsRelated);
  }

  it('sorts and groups by a related field through a join, not a lookup per row', async () => {
    // A scalar subquery in ORDER BY or GROUP BY runs once per matching row: 100,000 index lookups
    // over 100,000 posts, where a join reads the related table once (bench: relations, related sort).
    const sorted = await planOfPostsList('_sort=author.company_id.name,-id');
    expect(ids({ body: sorted.body as { data: Rec[] } })).toEqual([10, 11, 13, 12]);
    expect(relatedReadsInSubPlans(sorted.plan)).toEqual([]);
    // The group, its sort and an aggregate over the same chain share one join.
    const grouped = await planOfPostsList(
      '_aggregate=count(*),max(author.company_id.name),max(author.name)&_group_by=author.company_id.name&_sort=-author.company_id.name',
    );
    expect(grouped.body.data).toEqual([
      { 'author.company_id.name': null, count: 2, 'max_author.company_id.name': null, 'max_author.name': null },
      { 'author.company_id.name': 'Globex', count: 1, 'max_author.company_id.name': 'Globex', 'max_author.name': 'Bob' },
      { 'author.company_id.name': 'Acme', count: 1, 'max_author.company_id.name': 'Acme', 'max_author.name': 'Ann' },
    ]);
    expect(relatedReadsInSubPlans(grouped.plan)).toEqual([]);
  });

  it('groups and aggregates by related fields over to-one relations', async () => {
    const byAuthor = await list('comments', '_aggregate=count(*),sum(rating)&_group_by=post.author.name');
    expect(byAuthor.status).toBe(200);
    expect(byAuthor.body).toEqual({
      data: [
        { 'post.author.name': 'Ann', count: 2, sum_rating: 7 },
        { 'post.author.name': 'Bob', count: 1, sum_rating: 4 },
      ],
      total: 2,
    });
    // Post 12's author is soft-deleted and post 13 has none: both fall in the null group.
    const byCompany = await list('posts', '_aggregate=count(*)&_group_by=author.company_id.name');
    expect(byCompany.body.data).toEqual([
      { 'author.company_id.name': 'Acme', count: 1 },
      { 'author.company_id.name': 'Globex', count: 1 },
      { 'author.company_id.name': null, count: 2 },
    ]);
    const mixed = await list('posts', '_aggregate=max(author.name),count_distinct(author.company_id),count(author.id)');
    expect(mixed.body.data).toEqual([{ 'max_author.name': 'Bob', 'count_distinct_author.company_id': 2, 'count_author.id': 2 }]);
    const sorted = await list('comments', '_aggregate=count(*),avg(rating)&_group_by=post.author.name,post_id&_sort=-count,post_id');
    expect(sorted.body.data.map((group: Rec) => [group['post.author.name'], group.post_id, group.count])).toEqual([
      ['Ann', 10, 2],
      ['Bob', 11, 1],
    ]);
    const filtered = await list('comments', 'post.title=Intro&_aggregate=min(post.author.email)&_group_by=post.author.company_id.name');
    expect(filtered.body.data).toEqual([{ 'post.author.company_id.name': 'Acme', 'min_post.author.email': 'ann@acme.test' }]);
    for (const [query, parameter] of [
      ['_aggregate=count(*)&_group_by=comments.rating', '_group_by'],
      ['_aggregate=sum(comments.rating)', '_aggregate'],
      ['_aggregate=sum(author.name)', '_aggregate'],
      ['_aggregate=count(*)&_group_by=author.nope', '_group_by'],
      ['_aggregate=count(*)&_group_by=nope.name', '_group_by'],
      ['_aggregate=count(author.nope)', '_aggregate'],
      ['_aggregate=count(*)&_group_by=author.company_id.name&_sort=author.name', '_sort'],
      ['_aggregate=count(*)&_group_by=author.name&populate=author', 'populate'],
      ['_group_by=author.name', '_group_by'],
    ]) {
      const refused = await list('posts', query!);
      expect(refused.status, query).toBe(400);
      expect(refused.body.details, query).toHaveProperty([parameter!]);
    }
  });

  it('populates forward, reverse and many-to-many relations with per-relation controls', async () => {
    const answer = await list('posts', 'id=10&populate=author,comments,tags&comments_sort=rating&comments_order=desc&comments_limit=1');
    expect(answer.status).toBe(200);
    const [post] = answer.body.data as Rec[];
    expect(post!.author_id).toMatchObject({ id: 1, name: 'Ann' });
    expect(post!.author).toBeUndefined();
    expect(post!.comments.map((c: Rec) => c.id)).toEqual([100]);
    expect(post!.tags.map((t: Rec) => t.label).sort()).toEqual(['blue', 'red']);
    const offset = await list('posts', 'id=10&populate=comments&comments_sort=rating&comments_offset=1');
    expect(offset.body.data[0].comments.map((c: Rec) => c.id)).toEqual([100]);
  });

  it('populates many related records exactly: integers past 2^53 and hostile text stay whole', async () => {
    const schemas = {
      ledgers: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'balance', type: 'integer' },
          { name: 'memo', type: 'string' },
        ],
        primaryKey: ['id'],
      },
      entries: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'ledger_id', type: 'integer' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['ledger_id'], reference: { resource: 'ledgers', fields: ['id'] } }],
      },
    };
    for (const [name, schema] of Object.entries(schemas)) {
      expect((await call('POST', '/api/apps/blog/datasources/main/datatables/', { name, json_schema: schema })).status).toBe(201);
      expect((await call('POST', `/api/apps/blog/datatables/${name}/materialize/`)).status).toBe(200);
    }
    // Texts that would end or split a record if records were joined as text: brackets, commas, quotes.
    const memos = ['},{"id":1}', '"],[', '\\"', 'plain'];
    const ledgers = memos.map(
      (memo, at) => `{"id": 900719925474099${3 + at}, "balance": -922337203685477580${at}, "memo": ${JSON.stringify(memo)}}`,
    );
    expect((await call('POST', '/api/apps/blog/datatables/ledgers/data/', `[${ledgers.join(',')}]`)).status).toBe(201);
    const entries = Array.from({ length: 40 }, (_, at) => `{"id": ${at + 1}, "ledger_id": 900719925474099${3 + (at % 4)}}`);
    expect((await call('POST', '/api/apps/blog/datatables/entries/data/', `[${entries.join(',')}]`)).status).toBe(201);

    // Read as text: JSON.parse would round the integers itself.
    const response = await fetch(`${app.url}/api/apps/blog/datatables/entries/data/?_sort=id&page_size=40&populate=ledger`, {
      headers: { authorization: `Bearer ${admin}`, ...tenant },
    });
    expect(response.status).toBe(200);
    const { data } = parseExactJson(await response.text()) as { data: Rec[] };
    expect(data).toHaveLength(40);
    data.forEach((entry, at) => {
      expect(entry.ledger_id).toEqual({
        id: 9007199254740993n + BigInt(at % 4),
        balance: -9223372036854775800n - BigInt(at % 4),
        memo: memos[at % 4],
      });
    });
  });

  it('populates by text keys that quote, escape and split JSON, forward and reverse', async () => {
    const schemas = {
      regions: {
        fields: [
          { name: 'code', type: 'string' },
          { name: 'name', type: 'string' },
        ],
        primaryKey: ['code'],
      },
      stores: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'region_code', type: 'string' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['region_code'], reference: { resource: 'regions', fields: ['code'] } }],
      },
    };
    for (const [name, schema] of Object.entries(schemas)) {
      expect((await call('POST', '/api/apps/blog/datasources/main/datatables/', { name, json_schema: schema })).status).toBe(201);
      expect((await call('POST', `/api/apps/blog/datatables/${name}/materialize/`)).status).toBe(200);
    }
    // Each level comes back as one JSON text of [key, record] pairs: keys that end a string, a pair
    // or the array, escapes and characters past the BMP must each land on their own records.
    const codes = ['a"b', 'back\\slash', '"],["x', '\u00fc\ud83d\ude00', '__proto__'];
    expect(
      (
        await call(
          'POST',
          '/api/apps/blog/datatables/regions/data/',
          codes.map((code, at) => ({ code, name: `region ${at}` })),
        )
      ).status,
    ).toBe(201);
    const stores = codes.flatMap((code, at) => [
      { id: at * 10 + 1, region_code: code },
      { id: at * 10 + 2, region_code: code },
    ]);
    expect((await call('POST', '/api/apps/blog/datatables/stores/data/', stores)).status).toBe(201);

    const forward = await list('stores', '_sort=id&page_size=20&populate=region_code');
    expect(forward.status).toBe(200);
    expect(forward.body.data.map((store: Rec) => [store.id, store.region_code])).toEqual(
      stores.map((store) => [store.id, { code: store.region_code, name: `region ${codes.indexOf(store.region_code)}` }]),
    );
    const reverse = await list('regions', '_sort=name&populate=stores&stores_sort=id&stores_order=desc');
    expect(reverse.status).toBe(200);
    expect(reverse.body.data.map((region: Rec) => [region.code, region.stores.map((store: Rec) => store.id)])).toEqual(
      codes.map((code, at) => [code, [at * 10 + 2, at * 10 + 1]]),
    );
  });

  it('populates nested relations with dots and everything with *', async () => {
    const nested = await list('comments', '_sort=id&populate=post.author.company_id');
    expect(nested.body.data[0].post_id.author_id.company_id).toEqual({ id: 1, name: 'Acme' });
    const all = await list('posts', 'id=11&populate=*');
    expect(Object.keys(all.body.data[0]).sort()).toEqual(['author_id', 'comments', 'id', 'post_tags', 'tags', 'title']);
    const one = await call('GET', '/api/apps/blog/datatables/posts/data/11/?populate=author,tags');
    expect(one.status).toBe(200);
    expect(one.body.data.author_id.name).toBe('Bob');
    expect(one.body.data.tags.map((t: Rec) => t.label)).toEqual(['blue']);
  });

  it('answers 400 naming unknown relationships, too deep paths and stray controls', async () => {
    const refused = async (table: string, query: string, parameter: string, text?: string) => {
      const answer = await list(table, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.details, query).toHaveProperty([parameter]);
      if (text !== undefined) expect(answer.body.error).toContain(text);
    };
    await refused('posts', 'populate=author,nope', 'populate', '"nope"');
    await refused('comments', 'populate=post.author.company_id.x', 'populate', 'deeper than 3');
    await refused('posts', 'comments_limit=2', 'comments_limit', 'add "comments" to populate');
    await refused('posts', 'populate=author&author_limit=2', 'author_limit', 'leads to one record');
    await refused('posts', 'populate=comments&comments_sort=nope', 'comments_sort', '"nope"');
    await refused('posts', 'editor.name=Ann', 'editor.name', '"editor"');
    await refused('posts', 'author.nope=1', 'author.nope', '"nope"');
    await refused('posts', 'author.name__bogus=1', 'author.name__bogus');
    await refused('posts', 'author.company_id.name.x.y=1', 'author.company_id.name.x.y');
    await refused('posts', 'populate=author&_aggregate=count(*)', 'populate');
    const single = await call('GET', '/api/apps/blog/datatables/posts/data/10/?title=x');
    expect(single.status).toBe(400);
    expect(single.body.details).toHaveProperty('title');
  });

  it('issues exactly one statement per populated level for 1,000 parents, a to-one chain in one batch', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ id: 1000 + i, post_id: 10 + (i % 3), body: `c${i}`, rating: i % 5 }));
    expect((await call('POST', '/api/apps/blog/datatables/comments/data/', rows)).status).toBe(201);
    const dialect = new PgDialect();
    /** Each statement's text, with the batch it went in (undefined when sent alone). */
    const sent: Array<{ text: string; batch?: number }> = [];
    let batches = 0;
    let inBatch = false;
    // Counted, not replaced: every statement still runs on the real database. PGlite's rowsTogether
    // runs its statements through rows, which must not count them twice.
    const db = app.runtime.db;
    const realRows = db.rows.bind(db);
    const realTogether = db.rowsTogether.bind(db);
    const spies = [
      vi.spyOn(db, 'rows').mockImplementation(((statement: SQL) => {
        if (!inBatch) sent.push({ text: renderStatement(statement, dialect).sql });
        return realRows(statement);
      }) as typeof db.rows),
      vi.spyOn(db, 'rowsTogether').mockImplementation((statements) => {
        batches += 1;
        for (const statement of statements) sent.push({ text: renderStatement(statement, dialect).sql, batch: batches });
        inBatch = true;
        try {
          return realTogether(statements);
        } finally {
          inBatch = false;
        }
      }),
    ];
    try {
      const answer = await list('comments', 'id__gte=1000&page_size=1000&populate=post.author.company_id');
      expect(answer.status).toBe(200);
      expect(answer.body.data).toHaveLength(1000);
      expect(answer.body.data.every((c: Rec) => typeof c.post_id === 'object')).toBe(true);
      // Every comment's post, its author and the author's company, as three separate reads would give.
      const ann = answer.body.data.find((c: Rec) => c.post_id.id === 10);
      expect(ann.post_id.author_id).toMatchObject({ id: 1, name: 'Ann', company_id: { id: 1, name: 'Acme' } });
      const ghost = answer.body.data.find((c: Rec) => c.post_id.id === 12);
      expect(ghost.post_id.author_id).toBeNull();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const populateStatements = sent.filter(
      ({ text }) => /"blog_(posts|authors|companies)"/.test(text) && !text.includes('"blog_comments"'),
    );
    expect(populateStatements).toHaveLength(3);
    // post → author → company: each level's keys a subquery of the level above, all in one batch.
    expect(new Set(populateStatements.map(({ batch }) => batch)).size).toBe(1);
    expect(populateStatements[0]!.batch).toBeDefined();
  });

  it('runs a warm related list in one round trip, and reads again when a related table changed', async () => {
    const query = 'comments.body=great&_aggregate=count(*)&_group_by=author.company_id.name';
    const first = await list('posts', query);
    expect(first.body.data).toEqual([{ 'author.company_id.name': 'Acme', count: 1 }]);
    const db = app.runtime.db;
    const realRows = db.rows.bind(db);
    const realTogether = db.rowsTogether.bind(db);
    let statements = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let batches = 0;
    const counted = <T>(answer: Promise<T>): Promise<T> => {
      statements += 1;
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return answer.finally(() => {
        inFlight -= 1;
      });
    };
    const spies = [
      vi.spyOn(db, 'rows').mockImplementation(((statement: SQL) => counted(realRows(statement))) as typeof db.rows),
      vi.spyOn(db, 'rowsTogether').mockImplementation((sent) => {
        batches += 1;
        return realTogether(sent).map(counted);
      }),
    ];
    // One round trip: on PostgreSQL the caller-and-site read (or, with the caller's context read
    // moments ago and reused, its guard) and the list go as two statements sent together on one
    // connection; PGlite has one connection, so there they are one statement.
    const oneRoundTrip = () => (db.driver === 'postgres' ? statements === 2 && batches === 1 && mostInFlight === 2 : statements === 1);
    try {
      expect((await list('posts', 'comments.body=great&_sort=id')).body.data.map((post: Rec) => post.id)).toEqual([10]);
      expect(oneRoundTrip(), `${statements} statements, ${batches} batches`).toBe(true);
      statements = 0;
      const tree = await call('GET', '/api/apps/blog/datatables/posts/data/10/?populate=author');
      expect(tree.body.data.author_id.name).toBe('Ann');
      // The record and caller in one round trip (one statement, or two sent together on PostgreSQL),
      // then the one populate statement.
      expect(db.driver === 'postgres' ? [2, 3] : [2]).toContain(statements);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    // A related table that becomes soft-deleting (not the listed one) makes the remembered relations
    // stale: a soft-deleted comment must stop matching at once, never be found through the old schema.
    const schema = (await call('GET', '/api/apps/blog/datatables/comments/')).body.json_schema;
    const changed = await call('PATCH', '/api/apps/blog/datatables/comments/', {
      json_schema: { ...schema, fields: [...schema.fields, { name: 'is_deleted', type: 'boolean', default: false }] },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await call('DELETE', '/api/apps/blog/datatables/comments/data/100/')).status).toBe(204);
    expect((await list('posts', 'comments.body=great&_sort=id')).body.data).toEqual([]);
    expect((await list('posts', 'comments.body=good&_sort=id')).body.data.map((post: Rec) => post.id)).toEqual([11]);
  });
});
