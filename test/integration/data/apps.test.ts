import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

describe('apps and datasources API', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = { 'x-tenant': (await createSite(app, admin, 'Apps Site')).slug };
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates apps with slugs from names, numbered when taken, and lists them', async () => {
    const first = await call('POST', '/api/apps/', { name: 'CRM', description: 'Customers' });
    const second = await call('POST', '/api/apps/', { name: 'CRM' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      name: 'CRM',
      slug: 'crm',
      description: 'Customers',
      datasource_count: 0,
      table_count: 0,
      datasources: [],
    });
    expect(second.body.slug).toBe('crm-2');
    const list = await call('GET', '/api/apps/');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(Object.keys(list.body[0]).sort()).toEqual(['created_at', 'datasource_count', 'description', 'id', 'name', 'slug', 'updated_at']);
  });

  it('changes an app with PUT and PATCH and refuses a blank name', async () => {
    await call('POST', '/api/apps/', { name: 'Edit Me' });
    const patched = await call('PATCH', '/api/apps/edit-me/', { description: 'new' });
    const put = await call('PUT', '/api/apps/edit-me/', { name: 'Edited' });
    const blank = await call('PATCH', '/api/apps/edit-me/', { name: ' ' });
    expect(patched.body.description).toBe('new');
    expect(put.body).toMatchObject({ name: 'Edited', slug: 'edit-me' });
    expect(blank.status).toBe(400);
  });

  it('soft-deletes an app with its datasources and tables inactive, and restores them', async () => {
    await call('POST', '/api/apps/', { name: 'Temp' });
    await call('POST', '/api/apps/temp/datasources/', { name: 'Main', provider_type: 'flat_table' });
    await call('POST', '/api/apps/temp/datasources/main/datatables/', {
      name: 'notes',
      json_schema: { fields: [{ name: 'title', type: 'string' }] },
    });
    const deleted = await call('DELETE', '/api/apps/temp/');
    expect(deleted.status).toBe(204);
    expect((await call('GET', '/api/apps/temp/')).status).toBe(404);
    expect((await call('GET', '/api/apps/')).body.map((a: { slug: string }) => a.slug)).not.toContain('temp');
    const inactive = await app.runtime.db.rows(
      (await import('drizzle-orm')).sql`select count(*)::int as n from platform.sites where slug = ${tenant['x-tenant']!}`,
    );
    expect(inactive[0]!.n).toBe(1);
    const restored = await call('POST', '/api/apps/temp/restore/');
    expect(restored.status).toBe(200);
    expect(typeof restored.body.message).toBe('string');
    const source = await call('GET', '/api/apps/temp/datasources/main/');
    const table = await call('GET', '/api/apps/temp/datatables/notes/');
    expect(source.body.is_active).toBe(true);
    expect(table.body.is_active).toBe(true);
    expect((await call('POST', '/api/apps/temp/restore/')).status).toBe(409);
  });

  it('marks datasources and tables inactive while the app is deleted', async () => {
    await call('POST', '/api/apps/', { name: 'Gone' });
    await call('POST', '/api/apps/gone/datasources/', { name: 'Main', provider_type: 'jsonb' });
    await call('POST', '/api/apps/gone/datasources/main/datatables/', {
      name: 'items',
      json_schema: { fields: [{ name: 'a', type: 'string' }] },
    });
    await call('DELETE', '/api/apps/gone/');
    const { sql } = await import('drizzle-orm');
    const schema = (
      await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${tenant['x-tenant']!}`)
    )[0]!.schema_name;
    const rows = await app.runtime.db.rows<{ d: boolean; t: boolean }>(
      sql.raw(
        `select d.is_active as d, t.is_active as t from ${schema}.datasources d join ${schema}.datatables t on t.data_source_id = d.id join ${schema}.apps a on a.id = d.app_id where a.slug = 'gone'`,
      ),
    );
    expect(rows).toEqual([{ d: false, t: false }]);
  });

  it('reports app stats in the spec shape', async () => {
    await call('POST', '/api/apps/', { name: 'Stats' });
    await call('POST', '/api/apps/stats/datasources/', { name: 'One', provider_type: 'flat_table' });
    await call('POST', '/api/apps/stats/datasources/one/datatables/', {
      name: 't1',
      json_schema: { fields: [{ name: 'a', type: 'string' }] },
    });
    const stats = await call('GET', '/api/apps/stats/stats/');
    expect(stats.body).toEqual({
      app_name: 'Stats',
      app_slug: 'stats',
      total_datasources: 1,
      total_tables: 1,
      materialized_tables: 0,
      unmaterialized_tables: 1,
      datasources: [{ name: 'One', slug: 'one', provider_type: 'flat_table', total_tables: 1, materialized_tables: 0 }],
    });
  });

  describe('datasources', () => {
    beforeAll(async () => {
      await call('POST', '/api/apps/', { name: 'Sources' });
    });

    it('creates, reads, changes and deletes a datasource', async () => {
      const created = await call('POST', '/api/apps/sources/datasources/', {
        name: 'Main DB',
        provider_type: 'flat_table',
        provider_config: { allow_data_loss: true },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        app_slug: 'sources',
        app_name: 'Sources',
        slug: 'main-db',
        provider_type: 'flat_table',
        provider_config: { allow_data_loss: true },
        is_active: true,
        table_count: 0,
        materialized_count: 0,
      });
      const again = await call('POST', '/api/apps/sources/datasources/', { name: 'Main DB', provider_type: 'jsonb' });
      expect(again.body.slug).toBe('main-db-2');
      const taken = await call('POST', '/api/apps/sources/datasources/', { name: 'X', slug: 'main-db', provider_type: 'jsonb' });
      expect(taken.status).toBe(400);
      const patched = await call('PATCH', '/api/apps/sources/datasources/main-db/', { description: 'primary' });
      expect(patched.body.description).toBe('primary');
      const list = await call('GET', '/api/apps/sources/datasources/');
      expect(list.body.map((d: { slug: string }) => d.slug).sort()).toEqual(['main-db', 'main-db-2']);
      const stats = await call('GET', '/api/apps/sources/datasources/main-db/stats/');
      expect(stats.body).toEqual({
        total_tables: 0,
        materialized_tables: 0,
        unmaterialized_tables: 0,
        provider_type: 'flat_table',
        is_active: true,
      });
      expect((await call('DELETE', '/api/apps/sources/datasources/main-db-2/')).status).toBe(204);
      expect((await call('GET', '/api/apps/sources/datasources/main-db-2/')).status).toBe(404);
    });

    it('refuses unknown provider_config keys, a non-boolean allow_data_loss and mongodb', async () => {
      const unknown = await call('POST', '/api/apps/sources/datasources/', {
        name: 'A',
        provider_type: 'jsonb',
        provider_config: { host: 'x' },
      });
      const wrong = await call('POST', '/api/apps/sources/datasources/', {
        name: 'A',
        provider_type: 'jsonb',
        provider_config: { allow_data_loss: 'yes' },
      });
      const mongo = await call('POST', '/api/apps/sources/datasources/', { name: 'A', provider_type: 'mongodb' });
      const badType = await call('POST', '/api/apps/sources/datasources/', { name: 'A', provider_type: 'oracle' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors.provider_config[0]).toContain('host');
      expect(wrong.status).toBe(400);
      expect(mongo.status).toBe(400);
      expect(mongo.body.errors.provider_type[0]).toContain('mongodb');
      expect(badType.status).toBe(400);
    });

    it('refuses writes from a caller without manage_site', async () => {
      await app.createUser('data-reader');
      const { USER_PASSWORD } = await import('#test/support/test-app.ts');
      const token = (await app.login('data-reader', USER_PASSWORD)).access;
      const { sql } = await import('drizzle-orm');
      // A site permission counts for members of the site's organization only.
      await app.runtime.db.run(sql`insert into platform.organization_members (organization_id, user_id)
        select s.organization_id, u.id from platform.sites s, platform.users u
        where s.slug = ${tenant['x-tenant']!} and u.username = 'data-reader'`);
      await app.runtime.db.run(sql`insert into platform.site_user_permissions (site_id, user_id, permission_id)
        select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
        where s.slug = ${tenant['x-tenant']!} and u.username = 'data-reader' and p.codename = 'view_site'`);
      const read = await app.request('GET', '/api/apps/', { token, headers: tenant });
      const write = await app.request('POST', '/api/apps/', { token, headers: tenant, body: { name: 'Nope' } });
      expect(read.status).toBe(200);
      expect(write.status).toBe(403);
    });
  });
});
