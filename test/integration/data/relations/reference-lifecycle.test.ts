// A reference (import-reference) through the API after it is made: DELETE on its short URL removes
// the reference (never its source's table or records), its definition is read-only (409 saying so,
// not a 404), its schema, validate_data and operation history read through to the source, and a
// source that references hold answers 409 naming them. The import body refuses `__proto__` and the
// like by name, and a too long array names the limit.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const MATERIALS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'label', type: 'string', constraints: { required: true } },
  ],
  primaryKey: ['id'],
};

describe('reference lifecycle', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  /** An app with a flat-table datasource "main"; answers its slug. */
  async function appOf(name: string): Promise<string> {
    const created = await call('POST', '/api/apps/', { name });
    expect(created.status).toBe(201);
    await call('POST', `/api/apps/${created.body.slug}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    return created.body.slug as string;
  }

  /** A materialized table `name` of `appSlug` with two records, referenced from `referrer` as `reference`. */
  async function referencedSource(appSlug: string, name: string, referrer: string, reference: string): Promise<void> {
    expect((await call('POST', `/api/apps/${appSlug}/datasources/main/datatables/`, { name, json_schema: MATERIALS })).status).toBe(201);
    expect((await call('POST', `/api/apps/${appSlug}/datatables/${name}/materialize/`)).status).toBe(200);
    await call('POST', `/api/apps/${appSlug}/datatables/${name}/data/`, [
      { id: 1, label: 'oak' },
      { id: 2, label: 'ash' },
    ]);
    const imported = await call('POST', `/api/apps/${referrer}/datatables/import-reference/`, {
      source_app_slug: appSlug,
      source_table_name: name,
      reference_name: reference,
    });
    expect(imported.status).toBe(201);
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = (await createSite(app, admin, 'Reference Lifecycle Site')).slug;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    await appOf('Lab');
    await appOf('Tmpsrc');
    await appOf('Vault');
    await call('POST', '/api/apps/vault/datasources/main/datatables/', { name: 'accounts', json_schema: MATERIALS });
    await call('POST', '/api/apps/vault/datatables/accounts/materialize/');
  });
  afterAll(async () => {
    await app.close();
  });

  it('deletes a reference with 204 and keeps its source table and records', async () => {
    // Prepare
    await referencedSource('tmpsrc', 'mat', 'lab', 'mat');
    // Act
    const deleted = await call('DELETE', '/api/apps/lab/datatables/mat/');
    // Assess
    expect(deleted.status).toBe(204);
    expect((await call('GET', '/api/apps/lab/datatables/mat/')).status).toBe(404);
    expect((await call('GET', '/api/apps/lab/datatables/mat/data/')).status).toBe(404);
    expect((await call('GET', '/api/apps/lab/datatables/')).body.map((t: { name: string }) => t.name)).not.toContain('mat');
    const source = await call('GET', '/api/apps/tmpsrc/datatables/mat/data/?_sort=id');
    expect(source.body.data).toEqual([
      { id: 1, label: 'oak' },
      { id: 2, label: 'ash' },
    ]);
    expect((await call('DELETE', '/api/apps/lab/datatables/mat/')).status).toBe(404);
  });

  it('lets the source be deleted once its references are deleted', async () => {
    // Prepare
    await referencedSource('tmpsrc', 'gone', 'lab', 'gone_ref');
    expect((await call('DELETE', '/api/apps/tmpsrc/datatables/gone/')).status).toBe(409);
    // Act
    expect((await call('DELETE', '/api/apps/lab/datatables/gone_ref/')).status).toBe(204);
    const deleted = await call('DELETE', '/api/apps/tmpsrc/datatables/gone/');
    // Assess
    expect(deleted.status).toBe(204);
    const [left] = await app.runtime.db.rows<{ n: number }>(
      sql`select count(*)::int as n from pg_tables where schemaname = ${schema} and tablename = 'tmpsrc_gone'`,
    );
    expect(left!.n).toBe(0);
  });

  it('answers 409 naming every reference that holds a source being deleted', async () => {
    // Prepare
    await referencedSource('tmpsrc', 'held', 'lab', 'held_a');
    await call('POST', '/api/apps/vault/datatables/import-reference/', { source_app_slug: 'tmpsrc', source_table_name: 'held' });
    // Act
    const refused = await call('DELETE', '/api/apps/tmpsrc/datatables/held/');
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.referenced_by).toEqual(['lab/held_a', 'vault/held']);
    expect(refused.body.message).toContain('lab/held_a');
    expect(refused.body.message).toContain('vault/held');
    expect((await call('GET', '/api/apps/tmpsrc/datatables/held/data/1/')).status).toBe(200);
  });

  it("refuses changes to a reference's definition with 409 saying it is read-only", async () => {
    // Prepare
    await referencedSource('tmpsrc', 'fixed', 'lab', 'fixed');
    const changes: Array<[string, string, unknown]> = [
      ['PATCH', '/api/apps/lab/datatables/fixed/', { description: 'x' }],
      ['PUT', '/api/apps/lab/datatables/fixed/', { json_schema: MATERIALS }],
      ['POST', '/api/apps/lab/datatables/fixed/materialize/', undefined],
      ['POST', '/api/apps/lab/datatables/fixed/preview-changes/', { new_schema: MATERIALS }],
      ['POST', '/api/apps/lab/datatables/fixed/validate-schema/', { schema: MATERIALS }],
      ['POST', '/api/apps/lab/datatables/fixed/rollback/', { revision_id: '0123456789ab' }],
    ];
    for (const [method, path, body] of changes) {
      // Act
      const refused = await call(method, path, body);
      // Assess
      expect(refused.status, `${method} ${path}`).toBe(409);
      expect(refused.body.message, `${method} ${path}`).toContain('read-only');
      expect(refused.body).toMatchObject({ reference: 'lab/fixed', source: 'tmpsrc/fixed' });
    }
    expect((await call('GET', '/api/apps/tmpsrc/datatables/fixed/')).body.description).toBe('');
  });

  it("answers a reference's schema, validate_data and operation history from its source", async () => {
    // Prepare
    await referencedSource('tmpsrc', 'seen', 'lab', 'seen_ref');
    const source = (await call('GET', '/api/apps/tmpsrc/datatables/seen/schema/')).body;
    // Act
    const schemaBody = await call('GET', '/api/apps/lab/datatables/seen_ref/schema/');
    const history = await call('GET', '/api/apps/lab/datatables/seen_ref/operation-history/');
    const valid = await call('POST', '/api/apps/lab/datatables/seen_ref/validate_data/', { data: [{ id: 9, label: 'elm' }] });
    const invalid = await call('POST', '/api/apps/lab/datatables/seen_ref/validate_data/', { data: [{ id: 1 }] });
    // Assess
    expect(schemaBody.status).toBe(200);
    expect(schemaBody.body).toEqual({ ...source, name: 'seen_ref' });
    expect(history.status).toBe(200);
    expect(history.body.results.map((op: { operation_type: string }) => op.operation_type)).toEqual(['CREATE_TABLE']);
    const revision = history.body.results[0].revision_id as string;
    expect((await call('GET', `/api/apps/lab/datatables/seen_ref/operation-history/${revision}/`)).status).toBe(200);
    expect(valid.body).toEqual({ is_valid: true, errors: [], validated_rows: 1 });
    expect(invalid.body.is_valid).toBe(false);
    expect(invalid.body.errors).toEqual(["Row 1: missing required field 'label'."]);
  });

  it('refuses __proto__, constructor and toString members of an import body by name', async () => {
    for (const member of ['__proto__', 'constructor', 'toString']) {
      // Prepare: the member as a client sends it (JSON text, so __proto__ is a member, not a prototype)
      const text = `{"source_app_slug":"vault","source_table_name":"accounts","reference_name":"extra_${member.replace(/_/g, '').toLowerCase()}","${member}":{"x":1}}`;
      // Act
      const refused = await call('POST', '/api/apps/lab/datatables/import-reference/', text);
      // Assess
      expect(refused.status, member).toBe(400);
      expect(Object.keys(refused.body.errors), member).toEqual([member]);
      expect(refused.body.errors[member]).toEqual(['Unknown member.']);
    }
    expect((await call('GET', '/api/apps/lab/datatables/')).body.map((t: { name: string }) => t.name)).not.toContain('extra_proto');
  });

  it('names the limit when an import array has more than 100 entries', async () => {
    for (const size of [101, 1000]) {
      // Prepare
      const entries = Array.from({ length: size }, (_, i) => ({
        source_app_slug: 'vault',
        source_table_name: 'accounts',
        reference_name: `many_${i}`,
      }));
      // Act
      const refused = await call('POST', '/api/apps/lab/datatables/import-reference/', entries);
      // Assess
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body.errors)).toContain('At most 100 references per request');
    }
  });
});
