// Tenant migration 6: tables materialized before user patterns ran only on the linear-time engine
// carry `CHECK (col ~ '^(?:<pattern>)$')`, which PostgreSQL's backtracking engine would run on every
// write; the migration drops those and nothing else (the fixed yearmonth CHECK, other CHECKs stay).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantSchemaIdentifier } from '#shared/db/sql-identifiers.ts';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { tenantMigrations } from '#shared/db/tenant-migrations.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

describe(`tenant migration 6 (pattern CHECKs) on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.dispose();
  });

  it('drops the pattern CHECKs of materialized tables and keeps every other CHECK', async () => {
    await createTenantSchema(test.db, 'site_old_tables');
    // The DDL an earlier release generated for a flat table with pattern, yearmonth and min constraints.
    await test.db.run(
      sql.raw(`create table site_old_tables.crm_things (
      id bigint primary key,
      code text constraint crm_things_code_pattern check (code ~ '^(?:([A-Z])\\1)$'),
      slug text constraint crm_things_slug_pattern_3f2a9c1d check (slug ~ E'^(?:[a-z]+\\\\d)$'),
      month text constraint crm_things_month_yearmonth check (month ~ '^\\d{4}-(0[1-9]|1[0-2])$'),
      price int constraint crm_things_price_min check (price >= 0))`),
    );
    const migration = tenantMigrations.find((m) => m.version === 6)!;

    for (const statement of migration.statements(tenantSchemaIdentifier('site_old_tables'))) await test.db.run(statement);

    const left = await test.db.rows<{ conname: string }>(sql`select conname from pg_constraint
      where conrelid = 'site_old_tables.crm_things'::regclass and contype = 'c' order by conname`);
    expect(left.map((c) => c.conname)).toEqual(['crm_things_month_yearmonth', 'crm_things_price_min']);
    await test.db.run(sql`insert into site_old_tables.crm_things (id, code, slug) values (1, 'AB', 'x')`);
    await expect(test.db.run(sql`insert into site_old_tables.crm_things (id, month) values (2, '2020-13')`)).rejects.toThrow();
  });

  it("is part of the template, so a new site's schema records it", async () => {
    await createTenantSchema(test.db, 'site_new');
    const versions = await test.db.rows<{ version: number }>(sql`select version from site_new._migrations order by version`);
    expect(versions.map((v) => Number(v.version))).toContain(6);
  });
});
