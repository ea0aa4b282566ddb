// Access holds across relations. The Strapi (CVE-2023-22894) and Directus (CVE-2025-30352) leaks let
// a reader filter, sort or populate through a relation onto fields and rows the reader could not read
// directly, and probe their values one prefix at a time. Here a relation reaches exactly what a
// direct query of the far table reaches: hidden fields are refused the same way, soft-deleted rows
// never match nor show, and nothing outside the app and site is reachable, whatever the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { seedBlog } from '#test/support/relation-tables.ts';

type Rec = Record<string, any>; // `any`: answers are read field by field

describe('relations never reach what the caller may not read', () => {
  let app: TestApp;
  let admin: string;
  let reader: string;
  let tenant: Record<string, string>;
  let otherTenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown, token = admin, headers = tenant) =>
    app.request(method, path, { token, body, headers });
  const list = (table: string, query: string, token = reader, headers = tenant) =>
    call('GET', `/api/apps/blog/datatables/${table}/data/?${query}`, undefined, token, headers);
  const ids = (answer: { body: { data: Rec[] } }) => answer.body.data.map((record) => record.id);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = await createSite(app, admin, 'Leak Site');
    tenant = site.headers;
    await seedBlog(call);
    // A second site with the same app and table names, and a secret of its own.
    otherTenant = (await createSite(app, admin, 'Other Leak Site')).headers;
    await seedBlog((method, path, body) => call(method, path, body, admin, otherTenant));
    await call(
      'POST',
      '/api/apps/blog/datatables/authors/data/',
      { id: 50, name: 'Other', email: 'other-site-secret@x.test' },
      admin,
      otherTenant,
    );
    await call('POST', '/api/apps/blog/datatables/posts/data/', { id: 50, title: 'Other site', author_id: 50 }, admin, otherTenant);
    await app.createUser('leak-reader');
    expect(
      (
        await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, {
          token: admin,
          body: { user_slug: 'leak-reader' },
        })
      ).status,
    ).toBe(201);
    await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: admin,
      body: { users: [{ username: 'leak-reader', permissions: ['view_site'] }] },
    });
    reader = (await app.login('leak-reader', USER_PASSWORD)).access;
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a hidden field through a relation exactly as on its own table (CVE-2023-22894)', async () => {
    const direct = await list('authors', 'search_vector__contains=zed');
    expect(direct.status).toBe(400);
    for (const query of [
      'author.search_vector__contains=zed',
      'author.search_vector=zed',
      'comments.post.author.search_vector__null=false',
    ]) {
      const related = await list('posts', query);
      expect(related.status, query).toBe(400);
      expect(related.body.error, query).toContain('unknown field "search_vector"');
    }
    const sorted = await list('posts', '_sort=author.search_vector');
    expect(sorted.status).toBe(400);
    for (const query of [
      '_aggregate=count(*)&_group_by=author.search_vector',
      '_aggregate=count(author.search_vector)',
      '_aggregate=max(post.author.search_vector)',
    ]) {
      const grouped = await list(query.includes('post.') ? 'comments' : 'posts', query);
      expect(grouped.status, query).toBe(400);
      expect(grouped.body.error, query).toContain('unknown field "search_vector"');
    }
    expect((await list('authors', '_aggregate=count(*)&_group_by=search_vector')).status).toBe(400);
    expect((await list('authors', '_sort=search_vector')).status).toBe(400);
    const populateSort = await list('authors', 'populate=posts&posts_sort=nope');
    expect(populateSort.status).toBe(400);
  });

  it('never matches, sorts by or shows a soft-deleted related record (prefix probing finds nothing)', async () => {
    expect(ids(await list('posts', 'author.email__startswith=ann'))).toEqual([10]);
    for (const prefix of ['z', 'ze', 'zed-secret', 'zed-secret@acme.test']) {
      expect(ids(await list('posts', `author.email__startswith=${prefix}`)), prefix).toEqual([]);
      expect(ids(await list('posts', `author.email__startswith=${prefix}&include_deleted=true`)), prefix).toEqual([]);
    }
    expect(ids(await list('companies', 'authors.name=Zed'))).toEqual([]);
    expect(ids(await list('comments', 'post.author.name=Zed'))).toEqual([]);
    // Grouping by his email would give it a group of its own; hidden, it is the null group's.
    const groups = await list('posts', '_aggregate=count(*)&_group_by=author.email');
    expect(JSON.stringify(groups.body)).not.toContain('zed');
    expect(groups.body.data.at(-1)).toEqual({ 'author.email': null, count: 2 });
    const counted = await list('posts', '_aggregate=count_distinct(author.email),max(author.email)');
    expect(counted.body.data).toEqual([{ 'count_distinct_author.email': 2, 'max_author.email': 'bob@globex.test' }]);
    // Sorting by his name would place post 12 among the others; hidden, it sorts as a null.
    expect(ids(await list('posts', '_sort=author.email,id'))).toEqual([10, 11, 12, 13]);
    const populated = await list('posts', 'id=12&populate=author');
    expect(populated.body.data[0].author_id).toBeNull();
    const company = await list('companies', 'id=1&populate=authors');
    expect(company.body.data[0].authors.map((a: Rec) => a.name)).toEqual(['Ann']);
    expect(JSON.stringify(company.body)).not.toContain('zed');
  });

  it('reaches only tables of the same app and site (CVE-2025-30352)', async () => {
    expect(ids(await list('posts', 'author.email__contains=other-site-secret'))).toEqual([]);
    expect(JSON.stringify((await list('posts', 'populate=*')).body)).not.toContain('other-site-secret');
    // A reader of this site has no access to the other one, relations or not.
    expect((await list('posts', 'author.name=Other', reader, otherTenant)).status).toBe(403);
    // Another app of the same site cannot reference, nor be reached from, the blog's tables.
    await call('POST', '/api/apps/', { name: 'Shop' });
    await call('POST', '/api/apps/shop/datasources/', { name: 'Main', provider_type: 'flat_table' });
    const crossApp = await call('POST', '/api/apps/shop/datasources/main/datatables/', {
      name: 'orders',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'author_id', type: 'integer' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['author_id'], reference: { resource: 'authors', fields: ['id'] } }],
      },
    });
    expect(crossApp.status).toBe(400);
    expect((await list('authors', 'orders.id=1')).status).toBe(400);
    // A table that is not materialized yet is no relation: its rows cannot be reached through one.
    await call('POST', '/api/apps/blog/datasources/main/datatables/', {
      name: 'drafts',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'post_id', type: 'integer' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['post_id'], reference: { resource: 'posts', fields: ['id'] } }],
      },
    });
    expect((await list('posts', 'drafts.id=1')).status).toBe(400);
    expect((await list('posts', 'populate=drafts')).status).toBe(400);
  });

  it('answers hostile keys with a 400 naming them, never a 500', async () => {
    const hostile = [
      '__proto__.x=1',
      'constructor.name=1',
      'author.__proto__=1',
      'author.constructor=1',
      'author.toString=1',
      'populate=__proto__',
      'populate=constructor,toString',
      'populate=author.__proto__',
      '__proto___limit=1',
      `${'author.'.repeat(500)}name=1`,
      'author..name=1',
      '.name=1',
      'author.=1',
      'author.id__gt=999999999999999999999999',
      'author.id__in=1,2,x',
      'populate=comments&comments_limit=99999999999',
      'populate=comments&comments_offset=-1',
      `_sort=${'author.'.repeat(50)}name`,
      'author.name__between=a',
      '_aggregate=count(*)&_group_by=__proto__.x',
      '_aggregate=count(*)&_group_by=author.__proto__',
      '_aggregate=count(constructor.name)',
      `_aggregate=count(*)&_group_by=${'author.'.repeat(50)}name`,
      `_aggregate=max(${'author.company_id.'.repeat(5)}name)`,
      '_aggregate=count(*)&_group_by=author..name',
      '_aggregate=count(author.)',
    ];
    for (const query of hostile) {
      const answer = await list('posts', query);
      expect(answer.status, query).toBe(400);
      expect(Object.keys(answer.body.details ?? {}).length, query).toBeGreaterThan(0);
    }
    // A name repeated many times is one relation, read once.
    const repeated = await list('posts', `id=10&populate=${Array.from({ length: 200 }, () => 'comments').join(',')}`);
    expect(repeated.status).toBe(200);
    expect(repeated.body.data[0].comments).toHaveLength(2);
  });
});
