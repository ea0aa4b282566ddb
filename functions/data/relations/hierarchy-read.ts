// Reads of a hierarchy table: a record with its descendants and/or ancestors (`include`, `depth`,
// `graph_types`), a record as a tree (`format=tree`), and a page as a graph (`format=graph`). Walks
// are recursive CTEs that keep (type, node, depth) rows under UNION, so a cycle or a diamond is
// visited at most once per depth and the walk stops at `depth`: it never loops, and each record is
// answered once, at its smallest depth. Soft-deleted records are neither answered nor walked through.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { parseExactJson, stringifyExactJson } from '#shared/json/exact-json.ts';
import { recordText, softDeleteCondition } from '../records/query/compile.ts';
import { castTo, parseScalar, ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
import { queryError } from '../records/query/query-error.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import { edgeText, edgesSql, keyFieldOf } from './edges-sql.ts';
import { asHierarchy, typeList, type HierarchyTable } from './hierarchy-table.ts';
import type { DataRecord } from './populate.ts';
import type { RelationTable } from './relation-graph.ts';

const PARAMETERS = new Set(['format', 'include', 'depth', 'graph_types']);
const MAX_DEPTH = 100;

export interface HierarchyPlan {
  table: HierarchyTable;
  format: 'flat' | 'tree' | 'graph';
  include?: 'descendants' | 'ancestors' | 'both';
  depth: number;
  types: string[];
}

/** `format`, `include`, `depth` and `graph_types` of one request, collected while it is parsed. */
export class HierarchyRequest {
  private readonly values = new Map<string, string>();

  claims(key: string, raw: string): boolean {
    if (!PARAMETERS.has(key)) return false;
    this.values.set(key, raw);
    return true;
  }

  /** The plan, or undefined for a plain read; 400 for forms the table or the request cannot take. */
  plan(table: RelationTable, on: 'list' | 'record', defaultDepth: number): HierarchyPlan | undefined {
    if (this.values.size === 0) return undefined;
    const format = this.values.get('format') ?? 'flat';
    if (format !== 'flat' && format !== 'tree' && format !== 'graph') throw queryError('format', 'expects flat, tree or graph');
    const include = this.values.get('include');
    if (include !== undefined && include !== 'descendants' && include !== 'ancestors' && include !== 'both')
      throw queryError('include', 'expects descendants, ancestors or both');
    const hierarchical = format !== 'flat' || include !== undefined || this.values.has('depth') || this.values.has('graph_types');
    if (!hierarchical) return undefined;
    const first = include !== undefined ? 'include' : format !== 'flat' ? 'format' : this.values.has('depth') ? 'depth' : 'graph_types';
    const hierarchy = asHierarchy(table, first);
    if (on === 'list' && (include !== undefined || format === 'tree'))
      throw queryError(include !== undefined ? 'include' : 'format', 'applies to one record: GET .../data/{id}/');
    if (on === 'record' && format === 'graph') throw queryError('format', 'graph applies to a list: GET .../data/');
    const depthText = this.values.get('depth');
    if (depthText !== undefined && !/^\d{1,3}$/.test(depthText)) throw queryError('depth', 'expects a whole number');
    const depth = depthText === undefined ? defaultDepth : Number(depthText);
    if (depth > MAX_DEPTH) throw queryError('depth', `must be at most ${MAX_DEPTH}`);
    const typesText = this.values.get('graph_types');
    const types =
      typesText === undefined ? hierarchy.hierarchy.types.map((type) => type.name) : typeList(hierarchy, 'graph_types', typesText);
    return {
      table: hierarchy,
      format: format as HierarchyPlan['format'],
      ...(include === undefined ? {} : { include: include as HierarchyPlan['include'] }),
      depth,
      types,
    };
  }
}

type Direction = 'descendants' | 'ancestors';

/**
 * The CTE `walk(type, parent, node, depth)` of what is reachable from `id`: descendants follow edges
 * backwards (A → B of type manager means A reports to B, so A is B's descendant), ancestors forwards.
 * `perType` keeps each walk inside one type (include=); the tree walks every selected type at once.
 * Then `reached`: each record once per type (or once), at its smallest depth, with a parent there.
 */
function walkCte(nodes: TableDescriptor, id: string, direction: Direction, types: string[], depth: number, perType: boolean): SQL {
  const key = keyFieldOf(nodes);
  const cast = castTo(key);
  const [near, far] = direction === 'descendants' ? [sql.raw('to_id'), sql.raw('from_id')] : [sql.raw('from_id'), sql.raw('to_id')];
  const visible = softDeleteCondition(nodes, 'exclude');
  // Soft-deleted records end a walk: nothing behind them is reached through them.
  const through =
    visible === undefined ? sql`` : sql`join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = e.${far} and ${visible}`;
  return sql`with recursive walk(type, parent, node, depth) as (
      select e.type, e.${near}, e.${far}, 1 from ${edgesSql(nodes)} as e ${through}
      where e.${near} = ${id}::text${cast} and e.type = any(${sql.param(types)}::text[])
      union
      select e.type, e.${near}, e.${far}, w.depth + 1 from walk as w join ${edgesSql(nodes)} as e on e.${near} = w.node ${perType ? sql`and e.type = w.type` : sql`and e.type = any(${sql.param(types)}::text[])`} ${through}
      where w.depth < ${depth}
    ),
    reached as (select distinct on (${perType ? sql`type, ` : sql``}node) type, parent, node, depth from walk
      where node <> ${id}::text${cast} order by ${perType ? sql`type, ` : sql``}node, depth, parent)`;
}

/** Rows (type, parent, depth, record) of the tree walk, by depth. */
function treeSql(nodes: TableDescriptor, id: string, types: string[], depth: number): SQL {
  const key = keyFieldOf(nodes);
  return sql`${walkCte(nodes, id, 'descendants', types, depth, false)}
    select w.type, w.parent::text as parent, w.depth, ${recordText(nodes)} as record
    from reached as w join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = w.node
    where ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    order by w.depth, ${typedValue(nodes, key)}`;
}

/**
 * Per type, the reached records as one JSON array text made by the database, each record with its
 * `_depth` and `_relationship_type` spliced in before its closing brace (a record always has its key,
 * so it is never `{}`): thousands of descendants are never parsed here only to be written again.
 */
function includedSql(nodes: TableDescriptor, id: string, direction: Direction, types: string[], depth: number): SQL {
  const key = keyFieldOf(nodes);
  return sql`${walkCte(nodes, id, direction, types, depth, true)}
    select w.type, '[' || string_agg(left(${recordText(nodes)}, -1) || ',"_depth":' || w.depth::text || ',"_relationship_type":' || to_json(w.type)::text || '}', ','
        order by w.depth, ${typedValue(nodes, key)}) || ']' as records
    from reached as w join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = w.node
    where ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    group by w.type`;
}

type WalkRow = {
  type: string;
  parent: string;
  depth: number;
  record: string;
};

function parsed(text: string): DataRecord {
  return (typeof text === 'string' ? parseExactJson(text) : text) as DataRecord;
}

function keyOf(plan: HierarchyPlan, id: string): string {
  const value = parseScalar(keyFieldOf(plan.table.nodes), id);
  if (value === undefined) throw new Error('the record was read by this key already');
  return value;
}

/**
 * `{data, <label>: [...]}` as JSON text: per type, under its inverse label (descendants) or its name
 * (ancestors), flat and ordered by depth.
 */
export async function withIncluded(db: Queryable, plan: HierarchyPlan, id: string, record: DataRecord): Promise<string> {
  const lists = new Map<string, string>();
  const directions: Direction[] = plan.include === 'both' ? ['descendants', 'ancestors'] : [plan.include!];
  for (const direction of directions) {
    const labels = new Map(
      plan.table.hierarchy.types
        .filter((type) => plan.types.includes(type.name))
        .map((type) => [type.name, direction === 'descendants' ? type.inverse : type.name]),
    );
    for (const label of labels.values()) lists.set(label, '[]');
    if (plan.depth === 0 || plan.types.length === 0) continue;
    for (const row of await db.rows<{ type: string; records: string }>(
      includedSql(plan.table.nodes, keyOf(plan, id), direction, plan.types, plan.depth),
    )) {
      lists.set(labels.get(row.type)!, row.records);
    }
  }
  const members = [`"data":${stringifyExactJson(record)}`, ...[...lists].map(([label, text]) => `${JSON.stringify(label)}:${text}`)];
  return `{${members.join(',')}}`;
}

/** `{data: [root with _depth 0 and children[] nested], total}`: each record once, under its closest parent. */
export async function asTree(
  db: Queryable,
  plan: HierarchyPlan,
  id: string,
  record: DataRecord,
): Promise<{ data: DataRecord[]; total: number }> {
  const key = keyFieldOf(plan.table.nodes).name;
  const root: DataRecord = { ...record, _depth: 0, children: [] };
  const byKey = new Map<string, DataRecord>([[String(record[key]).toLowerCase(), root]]);
  if (plan.depth > 0 && plan.types.length > 0) {
    for (const row of await db.rows<WalkRow>(treeSql(plan.table.nodes, keyOf(plan, id), plan.types, plan.depth))) {
      const node: DataRecord = { ...parsed(row.record), _depth: Number(row.depth), _relationship_type: row.type, children: [] };
      byKey.set(String(node[key]).toLowerCase(), node);
      // Rows come by depth, so a parent (one level closer) is always placed before its children.
      (byKey.get(row.parent.toLowerCase())?.children as DataRecord[] | undefined)?.push(node);
    }
  }
  return { data: [root], total: byKey.size };
}

/** `{nodes, edges}` of a page: the page's records and the edges of the selected types between them. */
export async function asGraph(
  db: Queryable,
  plan: HierarchyPlan,
  records: DataRecord[],
): Promise<{ nodes: DataRecord[]; edges: unknown[] }> {
  const key = keyFieldOf(plan.table.nodes);
  const keys = records.map((record) => String(record[key.name]));
  if (keys.length === 0 || plan.types.length === 0) return { nodes: records, edges: [] };
  const cast = castTo(key);
  const rows = await db.rows<{ edge: string }>(sql`select ${edgeText()} as edge from ${edgesSql(plan.table.nodes)} as e
    where e.from_id = any(${sql.param(keys)}::text[]${cast}[]) and e.to_id = any(${sql.param(keys)}::text[]${cast}[])
      and e.type = any(${sql.param(plan.types)}::text[]) order by e.id`);
  const edges = rows.map((row) => {
    const edge = parsed(row.edge);
    return { id: edge.id, from: edge.from_id, to: edge.to_id, type: edge.type, metadata: edge.metadata };
  });
  return { nodes: records, edges };
}
