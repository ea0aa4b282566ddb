// Creates, upgrades and drops tenant schemas. A schema name reaches SQL only after it passed the
// identifier check (sql-identifiers.ts), and callers take it from the site record, never from client input.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from './database.ts';
import { tenantSchemaIdentifier } from './sql-identifiers.ts';
import { sites } from './platform-schema.ts';
import { tenantMigrations, type TenantMigration } from './tenant-migrations.ts';

function sortedMigrations(migrations: readonly TenantMigration[]): TenantMigration[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((migration, index) => {
    if (index > 0 && sorted[index - 1]!.version === migration.version) {
      throw new Error(`Tenant migration version ${migration.version} is defined twice`);
    }
  });
  return sorted;
}

async function applyPending(tx: Queryable, schema: SQL, migrations: readonly TenantMigration[]): Promise<number[]> {
  const appliedRows = await tx.rows<{ version: number }>(sql`select version from ${schema}._migrations`);
  const applied = new Set(appliedRows.map((row) => Number(row.version)));
  const newlyApplied: number[] = [];
  for (const migration of sortedMigrations(migrations)) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements(schema)) {
      await tx.run(statement);
    }
    await tx.run(sql`insert into ${schema}._migrations (version, name) values (${migration.version}, ${migration.name})`);
    newlyApplied.push(migration.version);
  }
  return newlyApplied;
}

/**
 * Creates a tenant schema from the template, all in one transaction: a failure leaves no schema.
 * Pass the caller's transaction to make it part of a larger unit (for example creating a site).
 */
export async function createTenantSchema(
  db: Queryable,
  schemaName: string,
  migrations: readonly TenantMigration[] = tenantMigrations,
): Promise<number[]> {
  const schema = tenantSchemaIdentifier(schemaName);
  return db.transaction(async (tx) => {
    await tx.run(sql`create schema ${schema}`);
    await tx.run(sql`create table ${schema}._migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    return applyPending(tx, schema, migrations);
  });
}

/** Applies the migrations a schema has not had yet; returns the versions it applied. */
export async function migrateTenantSchema(
  db: Queryable,
  schemaName: string,
  migrations: readonly TenantMigration[] = tenantMigrations,
): Promise<number[]> {
  const schema = tenantSchemaIdentifier(schemaName);
  return db.transaction(async (tx) => {
    // Two processes starting together must not apply the same version twice.
    await tx.run(sql`select pg_advisory_xact_lock(hashtext(${`tenant-migrations:${schemaName}`}))`);
    return applyPending(tx, schema, migrations);
  });
}

export interface TenantMigrationReport {
  schemaName: string;
  applied: number[];
}

/** Brings every site's schema up to the latest template version. */
export async function migrateAllTenantSchemas(
  db: Queryable,
  migrations: readonly TenantMigration[] = tenantMigrations,
): Promise<TenantMigrationReport[]> {
  const tenants = await db.query((orm) => orm.select({ schemaName: sites.schemaName }).from(sites).orderBy(sites.id));
  const reports: TenantMigrationReport[] = [];
  for (const { schemaName } of tenants) {
    reports.push({ schemaName, applied: await migrateTenantSchema(db, schemaName, migrations) });
  }
  return reports;
}

export async function dropTenantSchema(db: Queryable, schemaName: string): Promise<void> {
  await db.run(sql`drop schema if exists ${tenantSchemaIdentifier(schemaName)} cascade`);
}
