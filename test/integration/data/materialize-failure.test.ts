import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const COMPANIES = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string', constraints: { required: true } },
  ],
  primaryKey: ['id'],
};
const CONTACTS = {
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'name', type: 'string', constraints: { required: true } },
    { name: 'company_id', type: 'integer' },
  ],
  primaryKey: ['id'],
  foreignKeys: [{ fields: ['company_id'], reference: { resource: 'companies', fields: ['id'] } }],
};
/** Valid for the compiler, refused by PostgreSQL: the partial index compares a bigint with a non-number. */
const MISTYPED_INDEX = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'age', type: 'integer' },
  ],
  primaryKey: ['id'],
  indexes: [{ name: 'adults', fields: ['age'], where: "age >= 'eighteen'" }],
};

describe('a materialization that fails inside PostgreSQL', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const DS = '/api/apps/crm/datasources/main/datatables/';
  const physicalTable = async (name: string) =>
    app.runtime.db.rows(sql`select 1 from information_schema.tables where table_schema = ${schema} and table_name = ${name}`);
  const operationsOf = async (name: string) =>
    app.runtime.db.rows<{ operation_type: string; status: string; error_message: string | null; completed_at: unknown }>(
      sql.raw(
        `select operation_type, status, error_message, completed_at from "${schema}".schema_operations where table_name = '${name}' order by id`,
      ),
    );

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = (await createSite(app, admin, 'Failure Site')).slug;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    await call('POST', '/api/apps/', { name: 'CRM' });
    await call('POST', '/api/apps/crm/datasources/', { name: 'Main', provider_type: 'flat_table' });
  });
  afterAll(async () => {
    await app.close();
  });

  describe('because the foreign-key target table was dropped behind the platform', () => {
    let answer: Awaited<ReturnType<typeof call>>;

    beforeAll(async () => {
      expect((await call('POST', DS, { name: 'companies', json_schema: COMPANIES })).status).toBe(201);
      expect((await call('POST', `${DS}companies/materialize/`)).status).toBe(200);
      expect((await call('POST', DS, { name: 'contacts', json_schema: CONTACTS })).status).toBe(201);
      await app.runtime.db.run(sql.raw(`drop table "${schema}".crm_companies`));

      answer = await call('POST', '/api/apps/crm/datatables/contacts/materialize/');
    });

    it('answers a plain 500 without database internals', () => {
      expect(answer.status).toBe(500);
      expect(answer.body.code).toBe('INTERNAL_ERROR');
      expect(JSON.stringify(answer.body)).not.toContain('crm_companies');
    });

    it('leaves no physical table', async () => {
      expect(await physicalTable('crm_contacts')).toHaveLength(0);
    });

    it('records the CREATE_TABLE operation as FAILED with the database message', async () => {
      const operations = await operationsOf('crm_contacts');

      expect(operations).toHaveLength(1);
      expect(operations[0]).toMatchObject({ operation_type: 'CREATE_TABLE', status: 'FAILED' });
      expect(operations[0]!.error_message).toMatch(/crm_companies.*does not exist/);
      expect(operations[0]!.completed_at).not.toBeNull();
    });

    it('keeps the datatable unmaterialized', async () => {
      const detail = await call('GET', `${DS}contacts/`);

      expect(detail.body.is_materialized).toBe(false);
    });
  });

  describe('because PostgreSQL refuses an index the compiler accepted', () => {
    let answer: Awaited<ReturnType<typeof call>>;

    beforeAll(async () => {
      expect((await call('POST', DS, { name: 'people', json_schema: MISTYPED_INDEX })).status).toBe(201);

      answer = await call('POST', `${DS}people/materialize/`);
    });

    it('answers 400, as the database adapter maps invalid input (22P02) to a validation error', () => {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
    });

    it('rolls the created table back with the failed index', async () => {
      expect(await physicalTable('crm_people')).toHaveLength(0);
    });

    it('records the operation as FAILED with the database message', async () => {
      const operations = await operationsOf('crm_people');

      expect(operations.map((op) => op.status)).toEqual(['FAILED']);
      expect(operations[0]!.error_message).toMatch(/eighteen/);
    });

    it('lets the table be materialized once its schema is fixed, recording a second operation', async () => {
      const fixed = { ...MISTYPED_INDEX, indexes: [{ name: 'adults', fields: ['age'], where: 'age >= 18' }] };
      expect((await call('PATCH', `${DS}people/`, { json_schema: fixed })).status).toBe(200);

      const retry = await call('POST', `${DS}people/materialize/`);

      expect(retry.status).toBe(200);
      expect(await physicalTable('crm_people')).toHaveLength(1);
      expect((await operationsOf('crm_people')).map((op) => op.status)).toEqual(['FAILED', 'SUCCESS']);
    });
  });
});
