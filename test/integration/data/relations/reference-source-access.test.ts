// A reference (import-reference) opens nothing: a caller whose only standing is a role in the
// importing app can neither import a table of another app nor read or write one through a reference,
// as a direct request to that app would be refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

const PAYROLL = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'salary', type: 'integer' },
  ],
  primaryKey: ['id'],
};

describe('references and the source app', () => {
  let app: TestApp;
  let admin: string;
  let appdev: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  const call = (method: string, path: string, body?: unknown, token = admin) =>
    app.request(method, path, { token, body, headers: site.headers });
  const IMPORT = '/api/apps/app-one/datatables/import-reference/';

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Reference Source');
    await app.createUser('appdev');
    expect(
      (await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, { token: admin, body: { user_slug: 'appdev' } }))
        .status,
    ).toBe(201);
    appdev = (await app.login('appdev', USER_PASSWORD)).access;
    for (const name of ['App One', 'App Two']) {
      expect((await call('POST', '/api/apps/', { name })).status).toBe(201);
      const slug = name.toLowerCase().replace(' ', '-');
      expect((await call('POST', `/api/apps/${slug}/datasources/`, { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    }
    expect((await call('POST', '/api/apps/app-two/datasources/main/datatables/', { name: 'payroll', json_schema: PAYROLL })).status).toBe(
      201,
    );
    expect((await call('POST', '/api/apps/app-two/datatables/payroll/materialize/')).status).toBe(200);
    expect((await call('POST', '/api/apps/app-two/datatables/payroll/data/', { id: 1, salary: 100 })).status).toBe(201);
    const role = { name: 'Developer', permissions: ['view_site', 'access_site', 'manage_site'] };
    expect((await call('POST', '/api/app/app-one/roles', role)).status).toBe(201);
    expect((await call('POST', '/api/assign/roles', { roles: ['app-one-developer'], usernames: ['appdev'] })).status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a role holder of the importing app importing a table of another app (403, nothing made)', async () => {
    expect((await call('GET', '/api/apps/app-two/datatables/payroll/data/', undefined, appdev)).status).toBe(403);
    const answer = await call(
      'POST',
      IMPORT,
      { source_app_slug: 'app-two', source_table_name: 'payroll', reference_name: 'payroll_copy' },
      appdev,
    );
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('PERMISSION_DENIED');
    expect((await call('GET', '/api/apps/app-one/datatables/payroll_copy/')).status).toBe(404);
  });

  it('answers an app that does not exist as one the caller may not read', async () => {
    const missing = await call('POST', IMPORT, { source_app_slug: 'no-such-app', source_table_name: 'payroll' }, appdev);
    expect(missing.status).toBe(403);
  });

  it('refuses reads and writes through a reference made by someone who may read the source', async () => {
    const made = await call('POST', IMPORT, { source_app_slug: 'app-two', source_table_name: 'payroll', reference_name: 'payroll_ref' });
    expect(made.status).toBe(201);
    // The admin's read first, so a remembered table could not stand in for the check.
    expect((await call('GET', '/api/apps/app-one/datatables/payroll_ref/data/')).status).toBe(200);
    expect((await call('GET', '/api/apps/app-one/datatables/payroll_ref/data/', undefined, appdev)).status).toBe(403);
    expect((await call('GET', '/api/apps/app-one/datatables/payroll_ref/data/1/', undefined, appdev)).status).toBe(403);
    const write = await call('PATCH', '/api/apps/app-one/datatables/payroll_ref/data/1/', { salary: 1 }, appdev);
    expect(write.status).toBe(403);
    const row = await call('GET', '/api/apps/app-two/datatables/payroll/data/1/');
    expect(row.body.data).toMatchObject({ salary: 100 });
  });

  it("refuses the reference's relational reads, definition reads and edges as well", async () => {
    const base = '/api/apps/app-one/datatables/payroll_ref/';
    // Relational reads take their own way to the table (relations-service.ts): the same check.
    for (const query of ['populate=*', '_sort=-salary&populate=*', 'format=graph']) {
      const answer = await call('GET', `${base}data/?${query}`, undefined, appdev);
      expect([403, 400], query).toContain(answer.status);
      expect(JSON.stringify(answer.body), query).not.toContain('100');
    }
    expect((await call('GET', `${base}data/1/?populate=*`, undefined, appdev)).status).toBe(403);
    // The definition reads that go through to the source.
    expect((await call('GET', `${base}schema/`, undefined, appdev)).status).toBe(403);
    expect((await call('GET', `${base}operation-history/`, undefined, appdev)).status).toBe(403);
    expect((await call('POST', `${base}validate_data/`, { data: [{ id: 2, salary: 1 }] }, appdev)).status).toBe(403);
    // The admin, who reaches the source app, still reads them through.
    expect((await call('GET', `${base}schema/`)).status).toBe(200);
    expect((await call('GET', `${base}data/?populate=*`)).status).toBe(200);
    // Edges are the source's, served on the source table only.
    expect((await call('GET', `${base}edges/`)).status).toBe(409);
  });
});
