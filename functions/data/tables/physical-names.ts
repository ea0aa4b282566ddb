// The physical tables a datatable owns in its site's schema, and the rule that no two datatables
// own the same one: `<app slug>_<name>` (DECISIONS) can repeat across apps (`lab` + `x_y`,
// `lab-x` + `y`), and a hierarchy also owns its companion edges table (`<physical>_edges`).
import type { Queryable } from '#shared/db/database.ts';
import type { SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { edgesTableName } from './hierarchy-schema.ts';
import { tablesClaimingPhysicalNames, type DatatableRow } from './table-repository.ts';

const EDGES_SUFFIX = '_edges';

/** DECISIONS: app slug and table name joined by `_`, hyphens turned into underscores. */
export function physicalTableName(appSlug: string, name: string): string {
  return `${appSlug}_${name}`.replace(/-/g, '_');
}

/** Whether a Table Schema makes a hierarchy (and so an edges table at materialization). */
export function isHierarchy(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>).hierarchy === true;
}

/** The physical tables of a datatable: its own and, for a hierarchy, its edges table. */
export function ownedPhysicalNames(physical: string, hierarchy: boolean): string[] {
  return hierarchy ? [physical, edgesTableName(physical)] : [physical];
}

export interface PhysicalNameClash {
  /** The physical name both would own. */
  physicalName: string;
  /** The datatable already owning it. */
  table: DatatableRow;
}

/** The first other datatable (`except` being the table itself) that owns one of the physical tables given. */
export async function physicalNameClash(
  db: Queryable,
  site: Site,
  owned: string[],
  options: { except?: number; materializedOnly?: boolean } = {},
): Promise<PhysicalNameClash | undefined> {
  const nodes = owned.filter((name) => name.endsWith(EDGES_SUFFIX)).map((name) => name.slice(0, -EDGES_SUFFIX.length));
  for (const table of await tablesClaimingPhysicalNames(db, site, owned, nodes)) {
    if (table.id === options.except || (options.materializedOnly === true && !table.is_materialized)) continue;
    const theirs = ownedPhysicalNames(table.physical_table_name, isHierarchy(table.json_schema));
    const physicalName = owned.find((name) => theirs.includes(name));
    if (physicalName !== undefined) return { physicalName, table };
  }
  return undefined;
}

/** How a clash is told to the client: which physical table, and whose it is. */
export function clashMessage(clash: PhysicalNameClash): string {
  const owner = `table "${clash.table.name}" of app "${clash.table.app_slug}"`;
  const what = clash.physicalName === clash.table.physical_table_name ? 'the physical table' : 'the companion edges table of the hierarchy';
  return `The database table name "${clash.physicalName}" is already ${what} of ${owner}; choose another table name.`;
}
