// The record endpoints over HTTP on tables defined and materialized through the API, for both
// storage providers: answers, status codes and the data service's error shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PRODUCTS = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'sku', type: 'string', constraints: { required: true, unique: true } },
    { name: 'name', type: 'string', constraints: { required: true } },
    { name: 'price', type: 'number', constraints: { minimum: 0 } },
    { name: 'category', type: 'string', constraints: { enum: ['tools', 'toys'] } },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['name'] },
  ],
  primaryKey: ['id'],
};

describe.each(['flat_table', 'jsonb'])('records API on %s tables', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown, token = admin) => app.request(method, path, { token, body, headers: tenant });
  const SEED = [
    { sku: 'H-1', name: 'Hammer', price: 12.5, category: 'tools' },
    { sku: 'S-1', name: 'Saw', price: 30, category: 'tools' },
    { sku: 'B-1', name: 'Ball', price: 3, category: 'toys' },
    { sku: 'K-1', name: 'Kite', price: 15, category: 'toys' },
  ];
  let tables = 0;

  /** A products table of the test's own, so no test depends on what another did; its records path. */
  async function productsTable(options: { materialize?: boolean; seed?: boolean } = {}): Promise<string> {
    tables += 1;
    const name = `products_${tables}`;
    expect((await call('POST', '/api/apps/shop/datasources/main/datatables/', { name, json_schema: PRODUCTS })).status).toBe(201);
    if (options.materialize !== false) expect((await call('POST', `/api/apps/shop/datatables/${name}/materialize/`)).status).toBe(200);
    const data = `/api/apps/shop/datatables/${name}/data/`;
    if (options.materialize !== false && options.seed !== false) expect((await call('POST', data, SEED)).status).toBe(201);
    return data;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Records Site')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Shop' })).status).toBe(201);
    expect((await call('POST', '/api/apps/shop/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses records on a table that is not materialized yet', async () => {
    const DATA = await productsTable({ materialize: false });

    const answer = await call('GET', DATA);

    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: expect.any(String), code: 'CONFLICT' });
  });

  it('creates one record and many in one request, with generated ids', async () => {
    const DATA = await productsTable({ seed: false });
    const one = await call('POST', DATA, { sku: 'H-1', name: 'Hammer', price: 12.5, category: 'tools' });
    expect(one.status).toBe(201);
    expect(one.body.data).toMatchObject({ sku: 'H-1', name: 'Hammer', price: 12.5 });
    expect(one.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(one.body.data.search_vector).toBeUndefined();
    const many = await call('POST', DATA, [
      { sku: 'S-1', name: 'Saw', price: 30, category: 'tools' },
      { sku: 'B-1', name: 'Ball', price: 3, category: 'toys' },
      { sku: 'K-1', name: 'Kite', price: 15, category: 'toys' },
    ]);
    expect(many.status).toBe(201);
    expect(many.body.data).toHaveLength(3);
  });

  it('lists with filters, sorting, pagination and total', async () => {
    const DATA = await productsTable();
    const answer = await call('GET', `${DATA}?category=toys&price__gte=5&_sort=-price`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(answer.body.data.map((r: { sku: string }) => r.sku)).toEqual(['K-1']);
    const paged = await call('GET', `${DATA}?_sort=sku&page=2&page_size=2`);
    expect(paged.body.data.map((r: { sku: string }) => r.sku)).toEqual(['K-1', 'S-1']);
    expect(paged.body.total).toBe(4);
  });

  it('searches the stored vector and aggregates', async () => {
    const DATA = await productsTable();
    const found = await call('GET', `${DATA}?search=hammer`);
    expect(found.body.data.map((r: { sku: string }) => r.sku)).toEqual(['H-1']);
    expect(found.body.data[0].rank).toBeGreaterThan(0);
    const sums = await call('GET', `${DATA}?_aggregate=count(*),sum(price)&_group_by=category&_sort=category`);
    expect(sums.body.data).toEqual([
      { category: 'tools', count: 2, sum_price: 42.5 },
      { category: 'toys', count: 2, sum_price: 18 },
    ]);
  });

  it('answers bad input with 400 naming it, in the data error shape', async () => {
    const DATA = await productsTable();
    const unknownField = await call('GET', `${DATA}?colour=red`);
    expect(unknownField.status).toBe(400);
    expect(JSON.stringify(unknownField.body)).toContain('colour');
    const invalid = await call('POST', DATA, { sku: 'X-1', price: -1, category: 'food' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      error: 'Validation failed',
      details: { name: expect.any(Array), price: expect.any(Array), category: expect.any(Array) },
    });
    const duplicate = await call('POST', DATA, { sku: 'H-1', name: 'Other hammer' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.details).toHaveProperty('sku');
  });

  it('reads, patches and deletes one record, with the 404 shape for a missing one', async () => {
    const DATA = await productsTable();
    const list = await call('GET', `${DATA}?sku=H-1`);
    const id = list.body.data[0].id as string;
    expect((await call('GET', `${DATA}${id}/`)).body.data.sku).toBe('H-1');
    const patched = await call('PATCH', `${DATA}${id}/`, { price: 14 });
    expect(patched.body.data).toMatchObject({ sku: 'H-1', price: 14 });
    expect((await call('DELETE', `${DATA}${id}/`)).status).toBe(204);
    const missing = await call('GET', `${DATA}${id}/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: expect.any(String), detail: expect.any(String) });
  });

  it('upserts with 201 when it inserts and 200 when it updates', async () => {
    const DATA = await productsTable();
    const inserted = await call('POST', `${DATA}upsert/?unique_fields=sku`, { sku: 'D-1', name: 'Drill', price: 80 });
    expect(inserted.status).toBe(201);
    expect(inserted.body.created).toBe(true);
    const updated = await call('POST', `${DATA}upsert/?unique_fields=sku`, { sku: 'D-1', name: 'Drill', price: 75 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ created: false, data: { price: 75 } });
  });

  it('answers SQL tricks in every query position over HTTP with 400 or correct results, table intact', async () => {
    const DATA = await productsTable();
    const before = (await call('GET', `${DATA}?_sort=sku&page_size=100`)).body.data;
    const tricks = ["'", '"', "'; drop table shop_products; --", '") or 1=1 --', '1; select pg_sleep(5)', '%', '\\', '$1'];
    const attempts = tricks.flatMap((trick) => {
      const t = encodeURIComponent(trick);
      return [
        `${DATA}?${t}=1`,
        `${DATA}?name__${t}=1`,
        `${DATA}?name=${t}`,
        `${DATA}?name__icontains=${t}`,
        `${DATA}?price__between=${t}`,
        `${DATA}?_sort=${t}`,
        `${DATA}?_aggregate=sum(${t})`,
        `${DATA}?_aggregate=count(*)&_group_by=${t}`,
        `${DATA}?search=${t}`,
        `${DATA}?page=${t}`,
        `${DATA}?page_size=${t}`,
      ];
    });
    for (const path of attempts) {
      const started = performance.now();
      const answer = await call('GET', path);
      expect([200, 400], path).toContain(answer.status);
      expect(performance.now() - started, path).toBeLessThan(1000);
    }
    expect((await call('GET', `${DATA}?_sort=sku&page_size=100`)).body.data).toEqual(before);
  });

  it('deletes by ids and by filter, and refuses a delete without either', async () => {
    const DATA = await productsTable();
    const kite = (await call('GET', `${DATA}?sku=K-1`)).body.data[0].id as string;
    const byIds = await call('DELETE', `${DATA}?ids=${kite}`);
    expect(byIds.body).toMatchObject({ deleted: 1 });
    const byFilter = await call('DELETE', `${DATA}?filter=${encodeURIComponent(JSON.stringify({ category: 'toys' }))}`);
    expect(byFilter.body).toEqual({ deleted: 1 });
    expect((await call('DELETE', DATA)).status).toBe(400);
  });

  it('lets a view_site user read but not write', async () => {
    const DATA = await productsTable();
    await app.createUser(`viewer-${provider}`);
    const member = await app.request('POST', '/api/cloud/organizations/records-site-org/members/', {
      token: admin,
      body: { user_slug: `viewer-${provider}` },
    });
    expect(member.status).toBe(201);
    await app.request('POST', `/api/cloud/sites/${tenant['x-tenant']}/users/`, {
      token: admin,
      body: { users: [{ username: `viewer-${provider}`, permissions: ['view_site'] }] },
    });
    const viewer = (await app.login(`viewer-${provider}`, USER_PASSWORD)).access;
    expect((await call('GET', DATA, undefined, viewer)).status).toBe(200);
    const write = await call('POST', DATA, { sku: 'V-1', name: 'Vandal' }, viewer);
    expect(write.status).toBe(403);
  });
});
