import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantSchema, dropTenantSchema, migrateAllTenantSchemas } from '#shared/db/tenant-schemas.ts';
import { InvalidSchemaNameError } from '#shared/db/sql-identifiers.ts';
import { tenantMigrations, type TenantMigration } from '#shared/db/tenant-migrations.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

async function schemaExists(test: TestDatabase, name: string): Promise<boolean> {
  const rows = await test.db.rows(sql`select 1 from information_schema.schemata where schema_name = ${name}`);
  return rows.length === 1;
}

async function tablesOf(test: TestDatabase, schema: string): Promise<string[]> {
  const rows = await test.db.rows<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = ${schema} order by table_name`,
  );
  return rows.map((row) => row.table_name);
}

describe(`tenant schemas on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.dispose();
  });

  const registerSite = async (slug: string, schemaName: string) => {
    await test.db.run(sql`insert into platform.organizations (name, slug) values ('Owner', 'owner') on conflict do nothing`);
    await test.db.run(sql`
      insert into platform.sites (organization_id, slug, name, schema_name)
      select id, ${slug}, ${slug}, ${schemaName} from platform.organizations where slug = 'owner'`);
  };

  it('creates a schema from the versioned template and records the versions', async () => {
    const applied = await createTenantSchema(test.db, 'tenant_alpha');
    expect(applied).toEqual(tenantMigrations.map((m) => m.version));
    expect(await tablesOf(test, 'tenant_alpha')).toEqual(expect.arrayContaining(['_migrations', 'apps']));
    const versions = await test.db.rows<{ version: number }>(sql`select version from tenant_alpha._migrations order by version`);
    expect(versions.map((v) => v.version)).toEqual(tenantMigrations.map((m) => m.version));
  });

  it('leaves no schema behind when a template statement fails', async () => {
    const next = Math.max(...tenantMigrations.map((m) => m.version)) + 1;
    const broken: TenantMigration[] = [
      ...tenantMigrations,
      { version: next, name: 'broken', statements: (schema) => [sql`create table ${schema}.x (id int)`, sql`select * from no_such_table`] },
    ];
    await expect(createTenantSchema(test.db, 'tenant_broken', broken)).rejects.toThrow();
    expect(await schemaExists(test, 'tenant_broken')).toBe(false);
  });

  it('applies a new template version to every site schema, once', async () => {
    await createTenantSchema(test.db, 'tenant_beta');
    await registerSite('alpha', 'tenant_alpha');
    await registerSite('beta', 'tenant_beta');
    const version = Math.max(...tenantMigrations.map((m) => m.version)) + 1;
    const withNotes: TenantMigration[] = [
      ...tenantMigrations,
      { version, name: 'notes', statements: (schema) => [sql`create table ${schema}.notes (id serial primary key, body text)`] },
    ];
    const first = await migrateAllTenantSchemas(test.db, withNotes);
    expect(first).toEqual([
      { schemaName: 'tenant_alpha', applied: [version] },
      { schemaName: 'tenant_beta', applied: [version] },
    ]);
    expect(await tablesOf(test, 'tenant_beta')).toContain('notes');
    const second = await migrateAllTenantSchemas(test.db, withNotes);
    expect(second.every((report) => report.applied.length === 0)).toBe(true);
  });

  it('keeps tenants apart: the same table name lives in each schema separately', async () => {
    await test.db.run(sql`insert into tenant_alpha.apps (name, slug) values ('CRM', 'crm')`);
    const beta = await test.db.rows(sql`select * from tenant_beta.apps`);
    expect(beta).toEqual([]);
  });

  it.each(['Tenant', 'a-b', 'x; drop schema platform', 'public', 'platform', 'pg_catalog', `t${'x'.repeat(63)}`])(
    'refuses the unsafe or reserved schema name %s',
    async (name) => {
      await expect(createTenantSchema(test.db, name)).rejects.toBeInstanceOf(InvalidSchemaNameError);
    },
  );

  it('drops a schema with everything in it', async () => {
    await createTenantSchema(test.db, 'tenant_gone');
    await dropTenantSchema(test.db, 'tenant_gone');
    expect(await schemaExists(test, 'tenant_gone')).toBe(false);
  });
});
