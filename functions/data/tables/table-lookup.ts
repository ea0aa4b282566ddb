// A stored datatable found and compiled: by app and name (with the precise 404), its Table Schema
// compiled with the app's other tables for its foreign keys, and the per-process cache of compiled
// descriptors the record endpoints read on every request. Apart from table-service.ts, whose
// schema changes start migrations, so the migration modules can use it without a cycle back.
import type { Queryable } from '#shared/db/database.ts';
import { ConflictError, NotFoundError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { existingApp } from '../apps/app-service.ts';
import { existingDatasource } from '../apps/datasource-service.ts';
import type { StorageProvider, TableDescriptor } from './table-descriptor.ts';
import {
  findReferencedTable,
  findTable,
  findTableOfActiveApp,
  referencesOfApp,
  tablesOfApp,
  type DatatableRow,
  type ReferenceRow,
} from './table-repository.ts';
import { analyzeTableSchema, compileTable, type CompiledTable, type CompileTarget } from './table-schema.ts';
import type { TableAddress } from './table-schemas.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

/** How a table's schema compiles, with the app's other tables available to its foreign keys. */
export function compileTarget(
  site: Tenant,
  table: Pick<DatatableRow, 'name' | 'physical_table_name' | 'provider_type'>,
  appTables: DatatableRow[],
): CompileTarget {
  return {
    schemaName: site.schemaName,
    tableName: table.physical_table_name,
    provider: table.provider_type as StorageProvider,
    name: table.name,
    resolveTable: (name) => {
      const other = appTables.find((t) => t.name === name && t.name !== table.name);
      if (other === undefined) return undefined;
      const result = analyzeTableSchema(other.json_schema, {
        schemaName: site.schemaName,
        tableName: other.physical_table_name,
        provider: other.provider_type as StorageProvider,
        storedSchema: true,
        descriptorOnly: true,
      });
      return 'compiled' in result ? result.compiled.descriptor : undefined;
    },
  };
}

/** How a stored schema compiles: tolerant of forms refused since, its patterns in the dialect it was saved with. */
export function storedTarget(table: Pick<DatatableRow, 'pattern_dialect'>): Pick<CompileTarget, 'storedSchema' | 'patternDialect'> {
  return { storedSchema: true, patternDialect: table.pattern_dialect };
}

export async function compiledTable(db: Queryable, site: Tenant, table: DatatableRow): Promise<CompiledTable> {
  return compileTable(table.json_schema, {
    ...compileTarget(site, table, await tablesOfApp(db, site, table.app_id)),
    ...storedTarget(table),
  });
}

/**
 * A table by address or, on the short form when no table has the name, a reference (import-reference)
 * of the app under it; else the precise 404 (app, datasource or table).
 */
export async function tableOrReference(
  db: Queryable,
  site: Tenant,
  address: TableAddress,
): Promise<{ table: DatatableRow } | { reference: ReferenceRow }> {
  const app = await existingApp(db, site, address.app_slug);
  const table = await findTable(db, site, app.id, address.name);
  if (table !== undefined && (address.datasource_slug === undefined || table.datasource_slug === address.datasource_slug)) return { table };
  if (address.datasource_slug !== undefined) {
    await existingDatasource(db, site, address.app_slug, address.datasource_slug);
  } else {
    const [reference] = await referencesOfApp(db, site, address.app_slug, address.name);
    if (reference !== undefined) return { reference };
  }
  throw new NotFoundError('Datatable not found.');
}

/** What a write to a reference's definition answers: the definition is its source's, changed in its own app. */
export function referenceIsReadOnly(reference: ReferenceRow): ConflictError {
  const source = `${reference.app_slug}/${reference.name}`;
  return new ConflictError(
    `"${reference.reference_name}" is a reference to the table ${source} (import-reference): its definition is read-only here. ` +
      `Change the table in app "${reference.app_slug}", or DELETE the reference.`,
    { extras: { reference: `${reference.target_app_slug}/${reference.reference_name}`, source } },
  );
}

/**
 * A table of the app by address, for what changes or reads its own definition (schema changes,
 * materialize, migrations): a reference under the name is read-only here (409), not missing.
 */
export async function existingTable(db: Queryable, site: Tenant, address: TableAddress): Promise<DatatableRow> {
  const found = await tableOrReference(db, site, address);
  if ('reference' in found) throw referenceIsReadOnly(found.reference);
  return found.table;
}

/**
 * For the reads a reference answers through to its source (schema, validate_data, operation
 * history): the table, or the reference's source under the reference's name.
 */
export async function readableTable(db: Queryable, site: Tenant, address: TableAddress): Promise<{ table: DatatableRow; name: string }> {
  const found = await tableOrReference(db, site, address);
  return 'table' in found
    ? { table: found.table, name: found.table.name }
    : { table: found.reference, name: found.reference.reference_name };
}

/**
 * Compiled descriptors, keyed by everything a descriptor is computed from (tenant schema, physical
 * table, provider, the schema's hash and its pattern dialect): equal keys give equal descriptors, so an entry can never
 * be stale, even for a site deleted and made again under the same slug. The cap bounds memory.
 */
const DESCRIPTOR_CACHE_LIMIT = 500;
const descriptorCache = new BoundedMap<string, TableDescriptor>(DESCRIPTOR_CACHE_LIMIT);

/**
 * For the record endpoints, on every request: the materialized table's row and descriptor. One
 * query finds the table; the descriptor is compiled once per schema version and then reused.
 */
export async function loadTableDescriptor(
  db: Queryable,
  site: Tenant,
  appSlug: string,
  name: string,
): Promise<{ table: DatatableRow; descriptor: TableDescriptor }> {
  // When the one query finds nothing, existingTable answers the precise 404 (app or table).
  // A reference (import-reference) reads through to its source table.
  const table =
    (await findTableOfActiveApp(db, site, appSlug, name)) ??
    (await findReferencedTable(db, site, appSlug, name)) ??
    (await existingTable(db, site, { app_slug: appSlug, name }));
  if (!table.is_materialized) throw new ConflictError(`The table "${name}" is not materialized yet.`);
  const key = [site.schemaName, table.physical_table_name, table.provider_type, table.schema_hash, table.pattern_dialect].join(':');
  let descriptor = descriptorCache.get(key);
  if (descriptor === undefined) {
    descriptor = (await compiledTable(db, site, table)).descriptor;
    descriptorCache.set(key, descriptor);
  }
  return { table, descriptor };
}

/** Drops this process's descriptors of a table after its schema changed (the others are keyed by hash). */
export function forgetTableDescriptors(schemaName: string, tableName: string): void {
  const prefix = `${schemaName}:${tableName}:`;
  for (const key of descriptorCache.keys()) if (key.startsWith(prefix)) descriptorCache.delete(key);
}
