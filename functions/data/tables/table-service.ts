// The rules of datatables: names unique per app, Table Schema validation, the derived fields, the
// short URL form (no datasource segment), and what a schema change may do to a materialized table.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Database, Queryable } from '#shared/db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { existingApp } from '../apps/app-service.ts';
import { assertManagesData } from '../apps/data-access.ts';
import { existingDatasource } from '../apps/datasource-service.ts';
import { isSafeIdentifier } from '#shared/db/sql-identifiers.ts';
import { loadPatternEngineFor } from '#shared/text/pattern-engine.ts';
import { dropTableStatement } from './ddl.ts';
import { edgesTableName } from './hierarchy-schema.ts';
import {
  deleteReference,
  deleteTableRow,
  findTable,
  insertTable,
  referenceNameTaken,
  referencesHolding,
  referencesOfApp,
  tablesOfApp,
  tablesOfDatasource,
  updateTable,
  type DatatableRow,
  type ReferenceRow,
} from './table-repository.ts';
import { compileTable, schemaHash } from './table-schema.ts';
import { migrateTable, type MigrationSettings } from './migrations/migration-service.ts';
import { compileTarget, existingTable, tableOrReference } from './table-lookup.ts';
import { clashMessage, isHierarchy, ownedPhysicalNames, physicalNameClash, physicalTableName } from './physical-names.ts';
import type { MigrationRow } from './migrations/operation-repository.ts';
import type { CreateTableBody, PatchTableBody, TableAddress } from './table-schemas.ts';

/** Every table of an app (all its datasources) and, after them, the references it imported. */
export async function tablesAndReferencesOf(
  db: Queryable,
  site: Tenant,
  appSlug: string,
): Promise<{ tables: DatatableRow[]; references: ReferenceRow[] }> {
  const app = await existingApp(db, site, appSlug);
  const [tables, references] = await Promise.all([tablesOfApp(db, site, app.id), referencesOfApp(db, site, appSlug)]);
  return { tables, references };
}

export async function tablesOf(db: Queryable, site: Tenant, appSlug: string, datasourceSlug: string): Promise<DatatableRow[]> {
  const datasource = await existingDatasource(db, site, appSlug, datasourceSlug);
  return tablesOfDatasource(db, site, datasource.id);
}

export async function createTable(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  datasourceSlug: string,
  body: CreateTableBody,
): Promise<DatatableRow> {
  await assertManagesData(db, site, caller);
  const datasource = await existingDatasource(db, site, appSlug, datasourceSlug);
  const physical = physicalTableName(datasource.app_slug, body.name);
  if (!isSafeIdentifier(physical)) {
    throw ValidationError.forFields({
      name: [`The physical table name "${physical}" (app slug _ name) must be a safe identifier of at most 63 characters.`],
    });
  }
  const appTables = await tablesOfApp(db, site, datasource.app_id);
  if (appTables.some((t) => t.name === body.name))
    throw ValidationError.forFields({ name: ['A table with that name already exists in this app.'] });
  if (await referenceNameTaken(db, site, datasource.app_id, body.name))
    throw ValidationError.forFields({ name: ['A reference (import-reference) with that name already exists in this app.'] });
  const clash = await physicalNameClash(db, site, ownedPhysicalNames(physical, isHierarchy(body.json_schema)));
  if (clash !== undefined) throw ValidationError.forFields({ name: [clashMessage(clash)] });
  await loadPatternEngineFor([body.json_schema]);
  compileTable(
    body.json_schema,
    compileTarget(site, { name: body.name, physical_table_name: physical, provider_type: datasource.provider_type }, appTables),
  );
  try {
    await insertTable(db, site, {
      appId: datasource.app_id,
      datasourceId: datasource.id,
      name: body.name,
      description: body.description ?? '',
      schema: body.json_schema,
      physicalName: physical,
      hash: schemaHash(body.json_schema),
      userId: caller.id,
    });
  } catch (error) {
    if (error instanceof UniqueViolationError)
      throw ValidationError.forFields({ name: ['A table with that name already exists in this app.'] });
    throw error;
  }
  return (await findTable(db, site, datasource.app_id, body.name))!;
}

/**
 * A description change, and a schema change: stored as it is before materialization, a migration
 * after it (answered with the operation while that still runs past the request budget).
 */
export async function changeTable(
  db: Database,
  site: Tenant,
  caller: Principal,
  address: TableAddress,
  body: PatchTableBody,
  migrations: MigrationSettings,
): Promise<DatatableRow | { running: MigrationRow }> {
  await assertManagesData(db, site, caller);
  const table = await existingTable(db, site, address);
  if (body.schema_hash !== undefined && body.schema_hash !== table.schema_hash) {
    throw new ConflictError(
      "The table's schema changed since schema_hash was read; read it again and send the change on its current schema.",
    );
  }
  const schema = body.json_schema ?? table.json_schema;
  await loadPatternEngineFor([schema]);
  const hash = schemaHash(schema);
  if (hash !== table.schema_hash) {
    if (table.is_materialized) {
      const outcome = await migrateTable(db, migrations, site, caller, table, schema, body.allow_data_loss === true);
      if (!outcome.done) return { running: outcome.operation };
      if (body.description === undefined || body.description === table.description) return outcome.table;
      await updateTable(db, site, table.id, {
        description: body.description,
        schema: outcome.table.json_schema,
        hash: outcome.table.schema_hash,
        patternDialect: outcome.table.pattern_dialect,
        userId: caller.id,
      });
      return (await findTable(db, site, table.app_id, table.name))!;
    }
    compileTable(schema, compileTarget(site, table, await tablesOfApp(db, site, table.app_id)));
    // Turning `hierarchy` on claims the edges table's name too (switching it later is refused).
    if (isHierarchy(schema) && !isHierarchy(table.json_schema)) {
      const owned = ownedPhysicalNames(table.physical_table_name, true);
      const clash = await physicalNameClash(db, site, owned, { except: table.id });
      if (clash !== undefined) throw ValidationError.forFields({ json_schema: [clashMessage(clash)] });
    }
  }
  // A schema saved now passed XML Schema's dialect; an unchanged one keeps the dialect it was read in.
  const patternDialect = hash === table.schema_hash ? table.pattern_dialect : 'xsd';
  await updateTable(db, site, table.id, {
    description: body.description ?? table.description,
    schema,
    hash,
    patternDialect,
    userId: caller.id,
  });
  return (await findTable(db, site, table.app_id, table.name))!;
}

/**
 * A materialized table is dropped with its row, in one transaction; a table other apps reference
 * (import-reference) stays until those references are deleted (409 naming them). On the short form
 * a reference is deleted itself: its row is all it is, and its source's table and records stay.
 */
export async function removeTable(db: Queryable, site: Tenant, caller: Principal, address: TableAddress): Promise<void> {
  await assertManagesData(db, site, caller);
  const found = await tableOrReference(db, site, address);
  if ('reference' in found) {
    if (!(await deleteReference(db, site, found.reference.target_app_slug, found.reference.reference_name)))
      throw new NotFoundError('Datatable not found.');
    return;
  }
  const { table } = found;
  await db.transaction(
    async (tx) => {
      const locked = await findTable(tx, site, table.app_id, table.name, { forUpdate: true });
      if (locked === undefined) return;
      // Under the row lock: a reference made meanwhile waits for this transaction (its key check).
      const holders = await referencesHolding(tx, site, locked.id);
      if (holders.length > 0) {
        throw new ConflictError(
          `The table "${locked.name}" is referenced by ${holders.join(', ')} (import-reference); delete those references first.`,
          { extras: { referenced_by: holders } },
        );
      }
      if (locked.is_materialized) {
        try {
          // A hierarchy's edges table references the node table: it goes first. Only a hierarchy's:
          // a table of that name beside a plain table belongs to another datatable.
          if (isHierarchy(locked.json_schema)) {
            await tx.run(
              dropTableStatement(
                { schemaName: site.schemaName, tableName: edgesTableName(locked.physical_table_name) },
                { ifExists: true },
              ),
            );
          }
          await tx.run(dropTableStatement({ schemaName: site.schemaName, tableName: locked.physical_table_name }));
        } catch (error) {
          if (/depend/i.test(String((error as Error).message) + String((error as { cause?: Error }).cause?.message))) {
            throw new ConflictError('Other tables reference this table through foreign keys; delete them first.');
          }
          throw error;
        }
      }
      await deleteTableRow(tx, site, locked.id);
    },
    { statementTimeoutMs: 30_000, lockTimeoutMs: 5_000 },
  );
}
