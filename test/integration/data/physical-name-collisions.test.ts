// Physical table names (DECISIONS: `<app slug>_<name>`, hyphens to underscores) can repeat across
// apps, and a hierarchy also owns `<physical>_edges`. A table whose physical tables another table
// owns is refused when it is defined, naming that table; a clash left by tables defined before the
// rule answers materialize with 409 naming it, never a misleading 400.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PLAIN = { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] };
const HIERARCHY = { ...PLAIN, hierarchy: true, graph: { enabled: true, types: [{ name: 'parent', inverse: 'children' }] } };

describe('physical name collisions', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const define = (appSlug: string, name: string, jsonSchema: unknown = PLAIN) =>
    call('POST', `/api/apps/${appSlug}/datasources/main/datatables/`, { name, json_schema: jsonSchema });

  async function appOf(name: string): Promise<string> {
    const created = await call('POST', '/api/apps/', { name });
    expect(created.status).toBe(201);
    await call('POST', `/api/apps/${created.body.slug}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    return created.body.slug as string;
  }

  /** A datatable row written as tables defined before the rule could be: physical name taken from another. */
  async function legacyTwin(appSlug: string, name: string, physical: string, jsonSchema: unknown = PLAIN): Promise<void> {
    await app.runtime.db.run(sql`insert into ${sql.identifier(schema)}.datatables
        (app_id, data_source_id, name, description, json_schema, physical_table_name, schema_hash)
      select a.id, d.id, ${name}, '', ${JSON.stringify(jsonSchema)}::jsonb, ${physical}, 'legacy'
      from ${sql.identifier(schema)}.apps a join ${sql.identifier(schema)}.datasources d on d.app_id = a.id where a.slug = ${appSlug}`);
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = (await createSite(app, admin, 'Physical Names Site')).slug;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    expect(await appOf('Lab')).toBe('lab');
    expect(await appOf('Lab X')).toBe('lab-x');
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a table whose physical name another app already uses, naming that table', async () => {
    // Prepare
    expect((await define('lab', 'x_y')).status).toBe(201);
    // Act
    const refused = await define('lab-x', 'y');
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.errors.name[0]).toContain('"lab_x_y"');
    expect(refused.body.errors.name[0]).toContain('table "x_y" of app "lab"');
  });

  it("refuses a table named as an existing hierarchy's edges table", async () => {
    // Prepare
    expect((await define('lab', 'hx_same', HIERARCHY)).status).toBe(201);
    // Act
    const refused = await define('lab', 'hx_same_edges');
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.errors.name[0]).toContain('companion edges table');
    expect(refused.body.errors.name[0]).toContain('"hx_same"');
  });

  it("refuses a hierarchy whose edges table would take an existing table's name", async () => {
    // Prepare
    expect((await define('lab', 'hy_same_edges')).status).toBe(201);
    // Act
    const refused = await define('lab', 'hy_same', HIERARCHY);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.errors.name[0]).toContain('"lab_hy_same_edges"');
    expect(refused.body.errors.name[0]).toContain('table "hy_same_edges"');
  });

  it("refuses turning hierarchy on when the edges table's name is taken", async () => {
    // Prepare
    expect((await define('lab', 'hz_same_edges')).status).toBe(201);
    expect((await define('lab', 'hz_same')).status).toBe(201);
    // Act
    const refused = await call('PATCH', '/api/apps/lab/datatables/hz_same/', { json_schema: HIERARCHY });
    // Assess
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.errors.json_schema)).toContain('hz_same_edges');
  });

  it('answers materialize with 409 naming the table a legacy twin collides with', async () => {
    // Prepare
    expect((await define('lab', 'tw_in')).status).toBe(201);
    expect((await call('POST', '/api/apps/lab/datatables/tw_in/materialize/')).status).toBe(200);
    await legacyTwin('lab-x', 'in', 'lab_x_tw_in'.replace('x_tw', 'tw'));
    // Act
    const refused = await call('POST', '/api/apps/lab-x/datatables/in/materialize/');
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ physical_table_name: 'lab_tw_in', conflicts_with: 'lab/tw_in' });
    expect(refused.body.message).toContain('table "tw_in" of app "lab"');
  });

  it("answers materialize with 409 when a legacy table's physical name is a hierarchy's edges table", async () => {
    // Prepare
    expect((await define('lab', 'hw_same', HIERARCHY)).status).toBe(201);
    expect((await call('POST', '/api/apps/lab/datatables/hw_same/materialize/')).status).toBe(200);
    await legacyTwin('lab', 'hw_same_edges', 'lab_hw_same_edges');
    // Act
    const refused = await call('POST', '/api/apps/lab/datatables/hw_same_edges/materialize/');
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ physical_table_name: 'lab_hw_same_edges', conflicts_with: 'lab/hw_same' });
  });

  it('keeps a neighbour named like its edges table when a plain table is deleted', async () => {
    // Prepare: defined before the rule, a plain table and one named like its (never made) edges table
    expect((await define('lab', 'pv_same_edges')).status).toBe(201);
    expect((await call('POST', '/api/apps/lab/datatables/pv_same_edges/materialize/')).status).toBe(200);
    await legacyTwin('lab', 'pv_same', 'lab_pv_same');
    await app.runtime.db.run(sql`create table ${sql.identifier(schema)}.lab_pv_same (id integer primary key)`);
    await app.runtime.db.run(sql`update ${sql.identifier(schema)}.datatables set is_materialized = true where name = 'pv_same'`);
    // Act
    expect((await call('DELETE', '/api/apps/lab/datatables/pv_same/')).status).toBe(204);
    // Assess
    expect((await call('GET', '/api/apps/lab/datatables/pv_same_edges/data/')).status).toBe(200);
  });
});
