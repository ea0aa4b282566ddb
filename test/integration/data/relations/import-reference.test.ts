// import-reference over the API: a reference to another app's table answers 201 with is_reference and
// source_info and reads through to the source's records; an array answers 207 with every entry's
// outcome; the spec's refusals (unknown or unmaterialized source, a reference as source, a taken
// name, a table of another site) are per entry, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PRODUCTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
  ],
  primaryKey: ['id'],
};

describe('import-reference', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let otherTenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown, headers = tenant) =>
    app.request(method, path, { token: admin, body, headers });
  const IMPORT = '/api/apps/crm/datatables/import-reference/';

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Reference Site')).headers;
    otherTenant = (await createSite(app, admin, 'Other Reference Site')).headers;
    for (const headers of [tenant, otherTenant]) {
      for (const name of ['Shop', 'CRM']) {
        await call('POST', '/api/apps/', { name }, headers);
        await call('POST', `/api/apps/${name.toLowerCase()}/datasources/`, { name: 'Main', provider_type: 'flat_table' }, headers);
      }
    }
    await call('POST', '/api/apps/shop/datasources/main/datatables/', { name: 'products', json_schema: PRODUCTS });
    await call('POST', '/api/apps/shop/datatables/products/materialize/');
    await call('POST', '/api/apps/shop/datatables/products/data/', [
      { id: 1, name: 'Hammer' },
      { id: 2, name: 'Saw' },
    ]);
    await call('POST', '/api/apps/shop/datasources/main/datatables/', { name: 'drafts', json_schema: PRODUCTS });
    // Only the other site has a "secret" table.
    await call('POST', '/api/apps/shop/datasources/main/datatables/', { name: 'secret', json_schema: PRODUCTS }, otherTenant);
    await call('POST', '/api/apps/shop/datatables/secret/materialize/', undefined, otherTenant);
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates one reference (201) that reads through to the source records', async () => {
    const created = await call('POST', IMPORT, { source_app_slug: 'shop', source_table_name: 'products', reference_name: 'catalog' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'catalog',
      app_slug: 'crm',
      is_reference: true,
      is_materialized: true,
      source_info: { app: 'shop', table: 'products', physical_table_name: 'shop_products' },
    });
    const records = await call('GET', '/api/apps/crm/datatables/catalog/data/?_sort=id');
    expect(records.status).toBe(200);
    expect(records.body.data.map((r: { name: string }) => r.name)).toEqual(['Hammer', 'Saw']);
    expect((await call('GET', '/api/apps/crm/datatables/catalog/data/2/')).body.data).toEqual({ id: 2, name: 'Saw' });
  });

  it('answers an array with 207, each refusal under its index', async () => {
    const answer = await call('POST', IMPORT, [
      { source_app_slug: 'shop', source_table_name: 'products' },
      { source_app_slug: 'shop', source_table_name: 'products', reference_name: 'catalog' },
      { source_app_slug: 'shop', source_table_name: 'drafts' },
      { source_app_slug: 'crm', source_table_name: 'catalog' },
      { source_app_slug: 'shop', source_table_name: 'secret' },
      { source_app_slug: 'nope', source_table_name: 'products' },
      { source_app_slug: 'shop', source_table_name: 'products', reference_name: 'Bad Name' },
      { source_app_slug: 'shop', source_table_name: 'products', __proto__x: 1 },
      'not an object',
    ]);
    expect(answer.status).toBe(207);
    expect(answer.body).toMatchObject({ created: 1, failed: 8 });
    expect(answer.body.references[0]).toMatchObject({ name: 'products', is_reference: true });
    const errorOf = (index: number) => answer.body.errors.find((e: { index: number }) => e.index === index)?.error as string;
    expect(errorOf(1)).toContain('already has');
    expect(errorOf(2)).toContain('not materialized');
    expect(errorOf(3)).toMatch(/itself a reference|another app/);
    expect(errorOf(4)).toContain('No table "secret"');
    expect(errorOf(5)).toContain('No app "nope"');
    expect(errorOf(6)).toContain('reference_name');
    expect(errorOf(7)).toContain('__proto__x');
    expect(answer.body.errors[0]).toHaveProperty('reference');
  });

  it("shows references in the app's table list and detail with is_reference and source_info", async () => {
    await call('POST', '/api/apps/crm/datasources/main/datatables/', { name: 'contacts', json_schema: PRODUCTS });
    const listed = await call('GET', '/api/apps/crm/datatables/');
    expect(listed.status).toBe(200);
    const byName = new Map(listed.body.map((item: { name: string }) => [item.name, item]));
    expect([...byName.keys()]).toEqual(['contacts', 'catalog', 'products']);
    expect(byName.get('contacts')).toMatchObject({ is_reference: false, source_info: null, datasource_slug: 'main' });
    expect(byName.get('catalog')).toMatchObject({
      app_slug: 'crm',
      is_reference: true,
      source_info: { app: 'shop', table: 'products', physical_table_name: 'shop_products' },
    });
    const detail = await call('GET', '/api/apps/crm/datatables/catalog/');
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ name: 'catalog', app_slug: 'crm', is_reference: true, schema_format: 'frictionless' });
    expect(detail.body.source_info).toEqual({
      id: expect.any(Number),
      app: 'shop',
      table: 'products',
      physical_table_name: 'shop_products',
    });
    expect(detail.body.json_schema).toEqual(PRODUCTS);
    // Own tables say they are not references; the source app does not list the other app's names.
    expect((await call('GET', '/api/apps/shop/datatables/products/')).body).toMatchObject({ is_reference: false, source_info: null });
    expect((await call('GET', '/api/apps/shop/datatables/')).body.map((item: { name: string }) => item.name)).toEqual([
      'drafts',
      'products',
    ]);
    // A reference is in no datasource of the app: the long form and the datasource lists do not show it.
    expect((await call('GET', '/api/apps/crm/datasources/main/datatables/catalog/')).status).toBe(404);
    expect((await call('GET', '/api/apps/crm/datasources/main/datatables/')).body.map((item: { name: string }) => item.name)).toEqual([
      'contacts',
    ]);
    // Another site sees neither the reference nor the app's tables; a missing app is 404.
    expect((await call('GET', '/api/apps/crm/datatables/catalog/', undefined, otherTenant)).status).toBe(404);
    expect((await call('GET', '/api/apps/crm/datatables/', undefined, otherTenant)).body).toEqual([]);
    expect((await call('GET', '/api/apps/nope/datatables/')).status).toBe(404);
    expect((await call('GET', '/api/apps/nope/datatables/catalog/')).status).toBe(404);
    // A new table cannot take a reference's name.
    const clash = await call('POST', '/api/apps/crm/datasources/main/datatables/', { name: 'catalog', json_schema: PRODUCTS });
    expect(clash.status).toBe(400);
    expect(JSON.stringify(clash.body)).toContain('reference');
  });

  it('refuses a single bad entry with 400, and keeps the source while references exist', async () => {
    const refused = await call('POST', IMPORT, { source_app_slug: 'shop', source_table_name: 'drafts' });
    expect(refused.status).toBe(400);
    const reReference = await call('POST', '/api/apps/shop/datatables/import-reference/', {
      source_app_slug: 'crm',
      source_table_name: 'catalog',
    });
    expect(reReference.status).toBe(400);
    expect(JSON.stringify(reReference.body)).toContain('itself a reference');
    expect((await call('DELETE', '/api/apps/shop/datatables/products/')).status).toBe(409);
    expect((await call('GET', '/api/apps/crm/datatables/catalog/data/1/')).status).toBe(200);
  });
});
