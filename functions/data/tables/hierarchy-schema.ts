// The Table Schema's `hierarchy` and `graph` keys: a table with `hierarchy: true` is a graph of its
// records, whose edges live in a companion table (DECISIONS) and carry one of the declared types.
// Each type has a name, an inverse label (what descendants are listed under) and may cap how many
// outgoing edges of that type a record has.
import { constraintName } from './constraint-names.ts';

export interface EdgeType {
  name: string;
  inverse: string;
  description?: string;
  maxOutgoing?: number;
}

export interface HierarchySpec {
  types: EdgeType[];
}

const LABEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Members a hierarchy answer has beside its lists: `include=` answers `{data, <label>: [...]}` and a
 * tree `{data, total}`. A type name (the ancestors' label) or an inverse label (the descendants')
 * equal to one would overwrite it or be overwritten.
 */
const ANSWER_MEMBERS = new Set(['data', 'total']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `hierarchy` and `graph`; problems are collected with the schema's others. `stored`: a schema
 * saved before the answer's own members were refused as labels keeps reading (its answers as before).
 */
export function compileHierarchy(
  schema: Record<string, unknown>,
  primaryKey: string[],
  problems: string[],
  stored = false,
): HierarchySpec | undefined {
  const flag = schema.hierarchy;
  const graph = schema.graph;
  if (flag !== undefined && typeof flag !== 'boolean') problems.push('"hierarchy" must be true or false.');
  if (graph !== undefined && !isPlainObject(graph)) problems.push('"graph" must be an object of {enabled, types}.');
  if (flag !== true) {
    if (isPlainObject(graph) && graph.enabled === true) problems.push('"graph" needs "hierarchy": true.');
    return undefined;
  }
  if (primaryKey.length !== 1)
    problems.push('A table with "hierarchy": true needs a single-field primary key (edges name one record at each end).');
  if (!isPlainObject(graph) || graph.enabled === false) return { types: [] };
  if (graph.enabled !== undefined && typeof graph.enabled !== 'boolean') problems.push('graph.enabled must be true or false.');
  if (graph.types === undefined) return { types: [] };
  if (!Array.isArray(graph.types)) {
    problems.push('graph.types must be a list.');
    return undefined;
  }
  const types: EdgeType[] = [];
  const labels = new Set<string>();
  for (const [index, raw] of (graph.types as unknown[]).entries()) {
    const label = `graph.types[${index}]`;
    if (!isPlainObject(raw)) {
      problems.push(`${label} must be an object with "name" and "inverse".`);
      continue;
    }
    const { name, inverse, description, constraints } = raw;
    if (typeof name !== 'string' || !LABEL.test(name)) {
      problems.push(`${label}.name must be a lower-case name (letters, digits, "_").`);
      continue;
    }
    if (typeof inverse !== 'string' || !LABEL.test(inverse)) {
      problems.push(`${label}.inverse must be a lower-case name (letters, digits, "_").`);
      continue;
    }
    // `include=both` lists a type's ancestors under its name and its descendants under its inverse:
    // one label for both would keep one direction only.
    if (name === inverse && !stored) problems.push(`${label} ("${name}"): the inverse label must differ from the type name.`);
    for (const used of new Set([name, inverse])) {
      if (ANSWER_MEMBERS.has(used) && !stored)
        problems.push(`${label} ("${name}"): "${used}" is a member of every hierarchy answer; choose another label.`);
      else if (labels.has(used)) problems.push(`${label} ("${name}"): "${used}" is already a type name or inverse label.`);
      labels.add(used);
    }
    if (description !== undefined && typeof description !== 'string') problems.push(`${label}.description must be a string.`);
    const type: EdgeType = { name, inverse };
    if (typeof description === 'string') type.description = description;
    if (constraints !== undefined) {
      const max = isPlainObject(constraints) ? constraints.max_outgoing : undefined;
      if (
        !isPlainObject(constraints) ||
        (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 1_000_000))
      ) {
        problems.push(`${label}.constraints.max_outgoing must be a whole number from 1 to 1000000.`);
      } else if (max !== undefined) type.maxOutgoing = max;
    }
    types.push(type);
  }
  return { types };
}

/** The companion table of a hierarchy's edges, beside the node table (at most 63 characters). */
export function edgesTableName(nodeTable: string): string {
  return constraintName(nodeTable, 'edges');
}
