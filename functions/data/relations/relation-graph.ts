// The relations of an app's materialized tables, named as DECISIONS says: a forward relation by its
// foreign-key field (a field ending in `_id` also without the suffix), a reverse relation by the
// referencing table's name, a many-to-many relation (through a table whose primary key is two foreign
// keys) by the far table's name. Only materialized tables of the same app take part, so a relation
// never reaches a table the caller could not read directly; a reference to another app's table has
// no relations at all (its keys lead into the source app, which the caller's app does not open).
import type { Queryable } from '#shared/db/database.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { FieldDescriptor, TableDescriptor } from '../tables/table-descriptor.ts';
import { tablesOfApp, type DatatableRow } from '../tables/table-repository.ts';
import { compileTable, type ForeignKeySpec } from '../tables/table-schema.ts';
import type { HierarchySpec } from '../tables/hierarchy-schema.ts';
import { compileTarget } from '../tables/table-lookup.ts';
import { queryError } from '../records/query/query-error.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

export interface RelationTable {
  name: string;
  descriptor: TableDescriptor;
  foreignKeys: ForeignKeySpec[];
  /** A table with `hierarchy: true`: its edge types (the edges live in a companion table). */
  hierarchy?: HierarchySpec;
}

export type RelationKind = 'forward' | 'reverse' | 'many_to_many';

/**
 * One hop of a relation: rows of `target` whose `targetField` equals the `baseField` of a row on the
 * near side. A forward or reverse relation is one hop; many-to-many is two (near table → through
 * table → far table).
 */
export interface RelationHop {
  near: RelationTable;
  baseField: FieldDescriptor;
  target: RelationTable;
  targetField: FieldDescriptor;
}

export interface Relation {
  /** The canonical name: the key field (forward), or the table's name (reverse, many-to-many). */
  name: string;
  kind: RelationKind;
  /** The far table: the related records. */
  target: RelationTable;
  hops: [RelationHop] | [RelationHop, RelationHop];
}

/** A forward or reverse relation leads to at most one record (forward) or to a list (the others). */
export function isToOne(relation: Relation): boolean {
  return relation.kind === 'forward';
}

export class AppRelations {
  private readonly byTable = new Map<string, Map<string, Relation[]>>();

  /** `note`: why a name means no relation beyond being unknown (a reference has none). */
  constructor(
    readonly tables: ReadonlyMap<string, RelationTable>,
    private readonly note = '',
  ) {
    for (const table of tables.values()) this.byTable.set(table.name, new Map());
    for (const table of tables.values()) this.addRelationsOf(table);
  }

  /** The relations of a table under every name they answer to (a name may be ambiguous). */
  private add(table: string, names: string[], relation: Relation): void {
    const named = this.byTable.get(table)!;
    for (const name of new Set(names)) {
      const list = named.get(name) ?? [];
      list.push(relation);
      named.set(name, list);
    }
  }

  private addRelationsOf(table: RelationTable): void {
    for (const fk of singleFieldKeys(table)) {
      const target = this.tables.get(fk.reference.resource);
      if (target === undefined) continue;
      const baseField = fieldOf(table.descriptor, fk.fields[0]!);
      const targetField = fieldOf(target.descriptor, fk.reference.fields[0]!);
      const forward: Relation = { name: baseField.name, kind: 'forward', target, hops: [{ near: table, baseField, target, targetField }] };
      this.add(
        table.name,
        [baseField.name, ...(baseField.name.endsWith('_id') && baseField.name.length > 3 ? [baseField.name.slice(0, -3)] : [])],
        forward,
      );
      this.add(target.name, [table.name], {
        name: table.name,
        kind: 'reverse',
        target: table,
        hops: [{ near: target, baseField: targetField, target: table, targetField: baseField }],
      });
    }
    const keys = singleFieldKeys(table);
    const junction =
      table.descriptor.primaryKey.length === 2 && table.descriptor.primaryKey.every((name) => keys.some((fk) => fk.fields[0] === name));
    if (!junction) return;
    const [first, second] = table.descriptor.primaryKey.map((name) => keys.find((fk) => fk.fields[0] === name)!);
    const sides: Array<[ForeignKeySpec, ForeignKeySpec]> = [
      [first!, second!],
      [second!, first!],
    ];
    for (const [near, far] of sides) {
      const nearTable = this.tables.get(near.reference.resource);
      const farTable = this.tables.get(far.reference.resource);
      if (nearTable === undefined || farTable === undefined) continue;
      const hops: [RelationHop, RelationHop] = [
        {
          near: nearTable,
          baseField: fieldOf(nearTable.descriptor, near.reference.fields[0]!),
          target: table,
          targetField: fieldOf(table.descriptor, near.fields[0]!),
        },
        {
          near: table,
          baseField: fieldOf(table.descriptor, far.fields[0]!),
          target: farTable,
          targetField: fieldOf(farTable.descriptor, far.reference.fields[0]!),
        },
      ];
      this.add(nearTable.name, [farTable.name], { name: farTable.name, kind: 'many_to_many', target: farTable, hops });
    }
  }

  table(name: string): RelationTable {
    const table = this.tables.get(name);
    if (table === undefined) throw new Error(`table ${name} is not part of the app's relations`);
    return table;
  }

  /**
   * The relation a name means on a table; 400 naming `parameter` when it means none or several
   * (two foreign keys of one table to another make its reverse name ambiguous).
   */
  resolve(table: RelationTable, name: string, parameter: string): Relation {
    const candidates = this.byTable.get(table.name)?.get(name);
    if (candidates === undefined) {
      throw queryError(parameter, `unknown relationship "${name}" of table "${table.name}"${this.note}`);
    }
    const distinct = [...new Set(candidates)];
    if (distinct.length > 1) {
      throw queryError(
        parameter,
        `the relationship name "${name}" is ambiguous on table "${table.name}"; name the foreign-key field instead`,
      );
    }
    return distinct[0]!;
  }

  /** Whether a name means a relation of the table at all (for claiming `<relation>_limit` and the like). */
  has(table: RelationTable, name: string): boolean {
    return this.byTable.get(table.name)?.has(name) ?? false;
  }

  /** Every unambiguous relation of a table, once each, for `populate=*`. */
  all(table: RelationTable): Relation[] {
    const seen = new Set<Relation>();
    const ambiguous = new Set<Relation>();
    for (const list of this.byTable.get(table.name)?.values() ?? []) {
      if (new Set(list).size === 1) seen.add(list[0]!);
      else for (const relation of list) ambiguous.add(relation);
    }
    return [...seen].filter((relation) => !ambiguous.has(relation));
  }
}

function singleFieldKeys(table: RelationTable): ForeignKeySpec[] {
  return table.foreignKeys.filter((fk) => fk.fields.length === 1 && fk.reference.fields.length === 1);
}

function fieldOf(table: TableDescriptor, name: string): FieldDescriptor {
  const field = table.fields.find((candidate) => candidate.name === name);
  if (field === undefined) throw new Error(`field ${name} is not in ${table.tableName}`);
  return field;
}

/**
 * Compiled graphs, keyed by everything they are computed from (the schema and the id, hash and
 * materialization of every table of the app), so an entry is never stale; the cap bounds memory.
 */
const GRAPH_CACHE_LIMIT = 200;
const graphCache = new BoundedMap<string, AppRelations>(GRAPH_CACHE_LIMIT);

/** The relations of the app a table belongs to: one query for the app's tables, compiled once per version. */
export async function loadAppRelations(db: Queryable, site: Tenant, appId: number): Promise<AppRelations> {
  return appRelations(site, await tablesOfApp(db, site, appId));
}

/** The relations among an app's table rows (all of one app), compiled once per version of them. */
export function appRelations(site: Tenant, appRows: DatatableRow[]): AppRelations {
  const rows = appRows.filter((row) => row.is_materialized && row.is_active);
  const key = [
    site.schemaName,
    ...rows.map((row) => `${row.app_id}:${row.id}:${row.physical_table_name}:${row.provider_type}:${row.schema_hash}`),
  ].join('|');
  const cached = graphCache.get(key);
  if (cached !== undefined) return cached;
  const graph = new AppRelations(new Map(rows.map((row) => [row.name, relationTable(site, row, rows)])));
  graphCache.set(key, graph);
  return graph;
}

/**
 * The relations of a reference (import-reference), seen under `name` in the app that imported it:
 * none. Its source's keys lead to tables of the source app, and what the app may read there is the
 * source app's own access (app roles count in their app only), so a relation through the reference
 * (filter, sort, group, aggregate, populate, `*`) would read past it. Its hierarchy stays: the edges
 * are the table's own.
 */
export function referenceRelations(source: RelationTable, name: string): AppRelations {
  const table: RelationTable = { ...source, name, foreignKeys: [] };
  return new AppRelations(new Map([[name, table]]), " (a reference to another app's table has no relationships)");
}

function relationTable(site: Tenant, row: DatatableRow, rows: DatatableRow[]): RelationTable {
  const compiled = compileTable(row.json_schema, { ...compileTarget(site, row, rows), storedSchema: true });
  return {
    name: row.name,
    descriptor: compiled.descriptor,
    foreignKeys: compiled.foreignKeys,
    ...(compiled.hierarchy === undefined ? {} : { hierarchy: compiled.hierarchy }),
  };
}
