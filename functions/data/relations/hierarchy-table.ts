// A table read as a hierarchy: its node descriptor with its declared edge types, and the checks every
// hierarchy request makes first (the table has `hierarchy: true`, the named types are declared).
// Shared by the edges endpoints (edges-service.ts) and the hierarchy reads (hierarchy-read.ts).
import { ValidationError } from '#shared/errors.ts';
import { queryError } from '../records/query/query-error.ts';
import type { HierarchySpec } from '../tables/hierarchy-schema.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import type { RelationTable } from './relation-graph.ts';

export interface HierarchyTable {
  nodes: TableDescriptor;
  hierarchy: HierarchySpec;
}

/** The table as a hierarchy, or 400 when its schema does not say `hierarchy: true` (DECISIONS). */
export function asHierarchy(table: RelationTable, parameter?: string): HierarchyTable {
  if (table.hierarchy === undefined) {
    const problem = `table "${table.name}" has no hierarchy (its schema does not say "hierarchy": true)`;
    throw parameter === undefined ? new ValidationError(`The ${problem}.`) : queryError(parameter, problem);
  }
  return { nodes: table.descriptor, hierarchy: table.hierarchy };
}

/** Declared type names from a comma list; 400 naming `parameter` for one the schema does not declare. */
export function typeList(table: HierarchyTable, parameter: string, raw: string): string[] {
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !table.hierarchy.types.some((type) => type.name === name));
  if (unknown.length > 0)
    throw queryError(parameter, `unknown edge type${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `"${name}"`).join(', ')}`);
  return names;
}
