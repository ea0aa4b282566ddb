// Tenant migration 14: tables whose schemas were saved while Table Schema patterns were read as
// JavaScript's keep that reading (pattern_dialect 'ecmascript'), and so does the schema a rollback of
// an earlier migration would restore; tables without a pattern, and every table made since, read
// patterns as XML Schema's.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantSchemaIdentifier } from '#shared/db/sql-identifiers.ts';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { tenantMigrations } from '#shared/db/tenant-migrations.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

describe(`tenant migration 14 (pattern dialect) on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.dispose();
  });

  it("marks the schemas with a pattern as read in JavaScript's dialect, and only those", async () => {
    await createTenantSchema(test.db, 'site_old_patterns');
    // The schema as it was before version 14.
    await test.db.run(sql.raw('alter table site_old_patterns.datatables drop column pattern_dialect'));
    await test.db.run(sql.raw('alter table site_old_patterns.schema_operations drop column previous_pattern_dialect'));
    await test.db.run(sql.raw(`insert into site_old_patterns.apps (name, slug) values ('A', 'a')`));
    await test.db.run(
      sql.raw(`insert into site_old_patterns.datasources (app_id, name, slug, provider_type) values (1, 'M', 'm', 'flat_table')`),
    );
    const schemas: Record<string, unknown> = {
      patterned: { fields: [{ name: 'code', type: 'string', constraints: { pattern: '\\w+' } }] },
      plain: { fields: [{ name: 'code', type: 'string', constraints: { maxLength: 3 } }] },
      odd: { fields: 'not a list' },
    };
    for (const [name, schema] of Object.entries(schemas)) {
      await test.db.run(sql`insert into site_old_patterns.datatables (app_id, data_source_id, name, json_schema, physical_table_name, schema_hash)
        values (1, 1, ${name}, ${JSON.stringify(schema)}::jsonb, ${`a_${name}`}, ${'0'.repeat(64)})`);
    }
    await test.db.run(sql`insert into site_old_patterns.schema_operations (datatable_id, table_name, revision_id, operation_type, status, previous_schema)
      values (1, 'a_patterned', 'aaaaaaaaaaaa', 'ALTER_TABLE', 'SUCCESS', ${JSON.stringify(schemas.patterned)}::jsonb),
             (2, 'a_plain', 'bbbbbbbbbbbb', 'CREATE_TABLE', 'SUCCESS', null)`);

    const migration = tenantMigrations.find((m) => m.version === 14)!;
    for (const statement of migration.statements(tenantSchemaIdentifier('site_old_patterns'))) await test.db.run(statement);

    const tables = await test.db.rows<{ name: string; pattern_dialect: string }>(
      sql`select name, pattern_dialect from site_old_patterns.datatables order by name`,
    );
    expect(tables).toEqual([
      { name: 'odd', pattern_dialect: 'xsd' },
      { name: 'patterned', pattern_dialect: 'ecmascript' },
      { name: 'plain', pattern_dialect: 'xsd' },
    ]);
    const operations = await test.db.rows<{ revision_id: string; previous_pattern_dialect: string }>(
      sql`select revision_id, previous_pattern_dialect from site_old_patterns.schema_operations order by revision_id`,
    );
    expect(operations.map((o) => o.previous_pattern_dialect)).toEqual(['ecmascript', 'xsd']);
    await expect(test.db.run(sql`update site_old_patterns.datatables set pattern_dialect = 'perl'`)).rejects.toThrow();
  });

  it("is part of the template: a new site's tables read patterns as XML Schema's", async () => {
    await createTenantSchema(test.db, 'site_new_patterns');
    const versions = await test.db.rows<{ version: number }>(sql`select version from site_new_patterns._migrations order by version`);
    expect(versions.map((v) => Number(v.version))).toContain(14);
    const [column] = await test.db.rows<{ column_default: string }>(sql`select column_default from information_schema.columns
      where table_schema = 'site_new_patterns' and table_name = 'datatables' and column_name = 'pattern_dialect'`);
    expect(column?.column_default).toContain('xsd');
  });
});
