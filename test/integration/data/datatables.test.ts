import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const CONTACTS = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'email', type: 'string', format: 'email', constraints: { required: true, unique: true, maxLength: 200 } },
    { name: 'name', type: 'string', constraints: { pattern: '[A-Z].*' } },
    { name: 'age', type: 'integer', constraints: { minimum: 0, maximum: 150 } },
    { name: 'status', type: 'string', constraints: { enum: ['active', 'gone'] } },
    { name: 'company_id', type: 'integer' },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['name', 'email'] },
  ],
  primaryKey: ['id'],
  foreignKeys: [{ fields: ['company_id'], reference: { resource: 'companies', fields: ['id'] }, 'x-actions': { onDelete: 'SET NULL' } }],
  indexes: [
    { name: 'by_age', fields: ['age'], method: 'brin' },
    { name: 'active_email', fields: ['email'], unique: true, where: "status = 'active'" },
  ],
};
const COMPANIES = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string', constraints: { required: true } },
  ],
  primaryKey: ['id'],
};

describe('datatables and materialization API', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const DS = '/api/apps/crm/datasources/main/datatables/';
  // Tables of the Ledger app are made and materialized once, in beforeAll, and only read; every test
  // that makes, changes or drops tables uses an app of its own (appOf), so tests pass in any order.
  const LEDGER = '/api/apps/ledger/datasources/main/datatables/';

  /** A new app with a flat-table datasource "main" and a jsonb one "docs"; answers its slug. */
  async function appOf(name: string): Promise<string> {
    const created = await call('POST', '/api/apps/', { name });
    expect(created.status).toBe(201);
    const slug = created.body.slug as string;
    await call('POST', `/api/apps/${slug}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    await call('POST', `/api/apps/${slug}/datasources/`, { name: 'Docs', provider_type: 'jsonb' });
    return slug;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = (await createSite(app, admin, 'Tables Site')).slug;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    await appOf('CRM');
    await appOf('Ledger');
    for (const [name, json_schema] of [
      ['companies', COMPANIES],
      ['contacts', CONTACTS],
    ] as const) {
      const created = await call('POST', LEDGER, { name, json_schema });
      if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      const materialized = await call('POST', `${LEDGER}${name}/materialize/`);
      if (materialized.status !== 200) throw new Error(`materializing ${name}: ${materialized.status}`);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates a table, shows derived fields and answers on both URL forms', async () => {
    const created = await call('POST', DS, { name: 'companies', json_schema: COMPANIES });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'companies',
      physical_table_name: 'crm_companies',
      is_materialized: false,
      field_count: 2,
      field_names: ['id', 'name'],
      primary_key: ['id'],
      datasource_slug: 'main',
      app_slug: 'crm',
    });
    expect(created.body.schema_hash).toMatch(/^[0-9a-f]{64}$/);
    const short = await call('GET', '/api/apps/crm/datatables/companies/');
    const long = await call('GET', `${DS}companies/`);
    expect(short.body).toEqual(long.body);
    const list = await call('GET', DS);
    expect(list.body[0]).toMatchObject({ name: 'companies', is_materialized: false, field_count: 2 });
    const schemaBody = await call('GET', '/api/apps/crm/datatables/companies/schema/');
    expect(schemaBody.body).toEqual({ name: 'companies', schema: COMPANIES, schema_hash: created.body.schema_hash, field_count: 2 });
  });

  it('keeps the schema hash across key order and changes it with the content', async () => {
    const reordered = {
      primaryKey: ['id'],
      fields: [
        { type: 'integer', name: 'id' },
        { constraints: { required: true }, type: 'string', name: 'name' },
      ],
    };
    const appSlug = await appOf('Hashes');
    const tables = `/api/apps/${appSlug}/datasources/main/datatables/`;
    await call('POST', tables, { name: 'copy', json_schema: reordered });
    const a = await call('GET', `${LEDGER}companies/`);
    const b = await call('GET', `${tables}copy/`);
    expect(b.body.schema_hash).toBe(a.body.schema_hash);
    const changed = await call('PATCH', `/api/apps/${appSlug}/datatables/copy/`, { json_schema: { ...reordered, title: 'x' } });
    expect(changed.status).toBe(200);
    expect(changed.body.schema_hash).not.toBe(a.body.schema_hash);
    expect((await call('DELETE', `/api/apps/${appSlug}/datatables/copy/`)).status).toBe(204);
    expect((await call('GET', `${tables}copy/`)).status).toBe(404);
  });

  it('answers an invalid schema with 400 and the json_schema list', async () => {
    const unknownType = await call('POST', DS, { name: 'bad', json_schema: { fields: [{ name: 'a', type: 'text' }] } });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.json_schema[0]).toContain('string, number, integer');
    const injected = await call('POST', DS, { name: 'bad', json_schema: { fields: [{ name: 'a"; drop table x; --', type: 'string' }] } });
    expect(injected.status).toBe(400);
    expect(injected.body.json_schema[0]).toContain('not valid');
    const badName = await call('POST', DS, { name: 'x"; drop', json_schema: COMPANIES });
    expect(badName.status).toBe(400);
    const missingFk = await call('POST', DS, {
      name: 'bad',
      json_schema: { ...CONTACTS, foreignKeys: [{ fields: ['company_id'], reference: { resource: 'nope', fields: ['id'] } }] },
    });
    expect(missingFk.body.json_schema[0]).toContain('"nope"');
  });

  it('refuses materialize when a foreign-key target is not materialized, then materializes in order', async () => {
    const appSlug = await appOf('Sales');
    const tables = `/api/apps/${appSlug}/datasources/main/datatables/`;
    await call('POST', tables, { name: 'companies', json_schema: COMPANIES });
    await call('POST', tables, { name: 'contacts', json_schema: CONTACTS });
    const early = await call('POST', `/api/apps/${appSlug}/datatables/contacts/materialize/`);
    expect(early.status).toBe(400);
    expect(early.body.message).toContain('companies');
    expect((await call('POST', `${tables}companies/materialize/`)).status).toBe(200);
    const done = await call('POST', `${tables}contacts/materialize/`);
    expect(done.status).toBe(200);
    expect(done.body.datatable.is_materialized).toBe(true);
    expect(done.body.operation).toMatchObject({ operation_type: 'CREATE_TABLE', status: 'SUCCESS', error_message: null });
    expect(done.body.operation.revision_id).toMatch(/^[0-9a-f]{12}$/);
    expect(done.body.operation.executed_sql).toContain('create table');
    expect(done.body.operation.rollback_sql).toContain('drop table');
    expect(done.body.operation.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await call('POST', `${tables}contacts/materialize/`)).status).toBe(409);
    // A schema change of a materialized table is a migration: this one would change the key's type.
    expect((await call('PATCH', `${tables}contacts/`, { json_schema: COMPANIES })).status).toBe(400);
  });

  it('builds the physical table the schema describes (read back from the catalog)', async () => {
    const columns = await app.runtime.db.rows(sql`select column_name, data_type, is_nullable, is_generated from information_schema.columns
      where table_schema = ${schema} and table_name = 'ledger_contacts' order by ordinal_position`);
    expect(columns.map((c) => [c.column_name, c.data_type, c.is_nullable])).toEqual([
      ['id', 'uuid', 'NO'],
      ['email', 'text', 'NO'],
      ['name', 'text', 'YES'],
      ['age', 'bigint', 'YES'],
      ['status', 'text', 'YES'],
      ['company_id', 'bigint', 'YES'],
      ['search_vector', 'tsvector', 'YES'],
    ]);
    expect(columns.at(-1)!.is_generated).toBe('ALWAYS');
    const constraints = await app.runtime.db.rows<{
      contype: string;
      def: string;
    }>(sql`select c.contype::text as contype, pg_get_constraintdef(c.oid) as def
      from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${schema} and t.relname = 'ledger_contacts' order by c.conname`);
    const defs = constraints.map((c) => `${c.contype} ${c.def}`);
    expect(defs).toContain('p PRIMARY KEY (id)');
    expect(defs).toContain('u UNIQUE (email)');
    expect(
      defs.some((d) => d.startsWith('f FOREIGN KEY (company_id) REFERENCES') && d.includes('ledger_companies(id) ON DELETE SET NULL')),
    ).toBe(true);
    expect(defs.some((d) => d.includes('age >= 0'))).toBe(true);
    expect(defs.some((d) => d.includes('age <= 150'))).toBe(true);
    expect(defs.some((d) => d.includes('char_length(email) <= 200'))).toBe(true);
    // The pattern is checked by the app on its linear-time engine, never by a CHECK (DECISIONS).
    expect(defs.some((d) => d.includes('name ~'))).toBe(false);
    expect(defs.some((d) => d.includes("'active'") && d.includes("'gone'"))).toBe(true);
    const indexes = await app.runtime.db.rows<{ name: string; method: string; is_unique: boolean; predicate: string | null }>(sql`
      select i.relname as name, am.amname as method, x.indisunique as is_unique, pg_get_expr(x.indpred, x.indrelid) as predicate
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace join pg_am am on am.oid = i.relam
      where n.nspname = ${schema} and t.relname = 'ledger_contacts' order by i.relname`);
    const byName = Object.fromEntries(indexes.map((i) => [i.name, i]));
    expect(byName.ledger_contacts_by_age).toMatchObject({ method: 'brin', is_unique: false });
    expect(byName.ledger_contacts_active_email).toMatchObject({ method: 'btree', is_unique: true });
    expect(byName.ledger_contacts_active_email!.predicate).toContain("'active'");
    expect(byName.ledger_contacts_search_vector_idx).toMatchObject({ method: 'gin' });
    const ops = await app.runtime.db.rows(
      sql.raw(
        `select status, started_at, completed_at, executed_sql from ${schema}.schema_operations where table_name = 'ledger_contacts'`,
      ),
    );
    expect(ops).toHaveLength(1);
    expect(ops[0]!.started_at).not.toBeNull();
    expect(ops[0]!.completed_at).not.toBeNull();
  });

  it('materializes a jsonb table with key column, data and expression indexes', async () => {
    const docSchema = {
      fields: [
        { name: 'title', type: 'string' },
        { name: 'views', type: 'integer' },
        { name: 'search_vector', type: 'string' },
      ],
      indexes: [{ fields: ['views'] }],
    };
    expect((await call('POST', '/api/apps/crm/datasources/docs/datatables/', { name: 'docs', json_schema: docSchema })).status).toBe(201);
    const done = await call('POST', '/api/apps/crm/datatables/docs/materialize/');
    expect(done.status).toBe(200);
    const columns = await app.runtime.db.rows(sql`select column_name, data_type from information_schema.columns
      where table_schema = ${schema} and table_name = 'crm_docs' order by ordinal_position`);
    expect(columns.map((c) => [c.column_name, c.data_type])).toEqual([
      ['id', 'uuid'],
      ['data', 'jsonb'],
      ['search_vector', 'tsvector'],
    ]);
    const defs = await app.runtime.db.rows<{
      def: string;
    }>(sql`select pg_get_indexdef(x.indexrelid) as def from pg_index x join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace where n.nspname = ${schema} and t.relname = 'crm_docs'`);
    expect(defs.some((d) => d.def.includes("data ->> 'views'"))).toBe(true);
    expect(defs.some((d) => d.def.includes('gin (search_vector)'))).toBe(true);
  });

  it('validates data rows against the schema', async () => {
    const answer = await call('POST', '/api/apps/ledger/datatables/contacts/validate_data/', {
      data: [
        { email: 'a@b.co', age: 3 },
        { name: 'lower', age: -1, status: 'x' },
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.is_valid).toBe(false);
    expect(answer.body.validated_rows).toBe(2);
    expect(answer.body.errors).toContain("Row 2: missing required field 'email'.");
    expect(answer.body.errors.filter((e: string) => e.startsWith('Row 2')).length).toBe(4);
  });

  it('drops the physical table when a materialized table is deleted', async () => {
    const archive = await appOf('Archive');
    const docSchema = { fields: [{ name: 'title', type: 'string' }] };
    expect((await call('POST', `/api/apps/${archive}/datasources/docs/datatables/`, { name: 'docs', json_schema: docSchema })).status).toBe(
      201,
    );
    expect((await call('POST', `/api/apps/${archive}/datatables/docs/materialize/`)).status).toBe(200);
    const built = sql`select 1 from information_schema.tables where table_schema = ${schema} and table_name = 'archive_docs'`;
    expect(await app.runtime.db.rows(built)).toHaveLength(1);

    expect((await call('DELETE', `/api/apps/${archive}/datatables/docs/`)).status).toBe(204);
    const left = await app.runtime.db.rows(built);
    expect(left).toHaveLength(0);
  });
});
