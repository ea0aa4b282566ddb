// The operation history is a paged list and takes `_count` as every other (DECISIONS): `exact`
// (default), `planned` (with `total_is_estimate`), `none` (count null, `next` from a look-ahead row);
// any other value is 400 naming `_count`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const NOTES = { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] };
const HISTORY = '/api/apps/desk/datatables/notes/operation-history/';

describe('operation history _count', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'History Count Site')).headers;
    await call('POST', '/api/apps/', { name: 'Desk' });
    await call('POST', '/api/apps/desk/datasources/', { name: 'Main', provider_type: 'flat_table' });
    await call('POST', '/api/apps/desk/datasources/main/datatables/', { name: 'notes', json_schema: NOTES });
    await call('POST', '/api/apps/desk/datatables/notes/materialize/');
    // Two migrations: three operations in all.
    for (const field of ['a', 'b']) {
      const fields = [...NOTES.fields, { name: 'a', type: 'string' }, ...(field === 'b' ? [{ name: 'b', type: 'string' }] : [])];
      expect((await call('PATCH', '/api/apps/desk/datatables/notes/', { json_schema: { ...NOTES, fields } })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers count null under _count=none, next from the rows that follow', async () => {
    // Act
    const first = await call('GET', `${HISTORY}?_count=none&limit=2`);
    const last = await call('GET', `${HISTORY}?_count=none&limit=2&offset=2`);
    // Assess
    expect(first.status).toBe(200);
    expect(first.body.count).toBeNull();
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toContain('offset=2');
    expect(first.body.next).toContain('_count=none');
    expect(last.body).toMatchObject({ count: null, next: null });
    expect(last.body.previous).toContain('_count=none');
  });

  it('answers the count with total_is_estimate under _count=planned', async () => {
    // Act
    const planned = await call('GET', `${HISTORY}?_count=planned`);
    // Assess
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({ count: 3, total_is_estimate: false, next: null });
  });

  it('answers the exact count by default and under _count=exact, without total_is_estimate', async () => {
    for (const query of ['', '?_count=exact']) {
      // Act
      const page = await call('GET', `${HISTORY}${query}`);
      // Assess
      expect(page.body.count).toBe(3);
      expect(page.body).not.toHaveProperty('total_is_estimate');
    }
  });

  it('refuses an unknown _count naming it', async () => {
    // Act
    const refused = await call('GET', `${HISTORY}?_count=bogus`);
    // Assess
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toEqual(['_count']);
  });
});
