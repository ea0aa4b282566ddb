// Reads of a hierarchy table: a record with its descendants and/or ancestors (`include`, `depth`,
// `graph_types`), a record as a tree (`format=tree`), and a page as a graph (`format=graph`). Walks
// are recursive CTEs that stop at `depth` and never loop: an included list keeps (node, depth) rows
// under UNION, a tree walks breadth first with a visited set per root. Each record is answered once,
// at its smallest depth. Soft-deleted records are neither answered nor walked through.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { recordText, recordTextWith, softDeleteCondition } from '../records/query/compile.ts';
import { castTo, parseScalar, ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
import { queryError } from '../records/query/query-error.ts';
import type { FilterCondition } from '../records/query/filters.ts';
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
    if (on === 'list' && include !== undefined) throw queryError('include', 'applies to one record: GET .../data/{id}/');
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
 * The tree walk from each of `roots` over edges of `types`, breadth first with a visited set per
 * root: `tree(given, root, type, parent, node, depth)`, each record reached once per root, at its
 * smallest depth, under its parent one level closer (the smallest such key, then the type's name).
 * Descendants follow edges backwards (A → B of type manager means A reports to B, so A is B's
 * descendant). `bfs` holds one row per root and level: the records first reached there, each with
 * its parent and type, and `seen`, every record reached so far (a jsonb object by the key's text,
 * so a test is a lookup, not a scan). Each record is expanded once per root and the walk ends when a
 * level adds nothing: its work is the edges out of what it reaches, whatever the depth and however
 * dense the graph (one row per parent and depth, as this walk once kept, made it edges × records ×
 * depth). The root is seen from the start, so a cycle never leads back to it. The frontier is joined
 * (one index probe per record), never tested with `= any(array)`, a scan of the array per edge.
 */
function treeWalkCte(nodes: TableDescriptor, roots: string[], types: string[], depth: number): SQL {
  const key = keyFieldOf(nodes);
  const cast = castTo(key);
  const visible = softDeleteCondition(nodes, 'exclude');
  // Soft-deleted records end a walk: nothing behind them is reached through them.
  const through =
    visible === undefined ? sql`` : sql`join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = e.from_id and ${visible}`;
  return sql`with recursive bfs(given, root, frontier, parents, types, seen, depth) as (
      select r.given, r.given${cast}, array[r.given${cast}], null::text[], null::text[],
        jsonb_build_object((r.given${cast})::text, true), 0
      from unnest(${sql.param(roots)}::text[]) as r(given)
      union all
      select b.given, b.root, n.next, n.parents, n.types, b.seen || n.added, b.depth + 1 from bfs as b
        cross join lateral (
          select array_agg(c.node) as next, array_agg(c.parent::text) as parents, array_agg(c.type) as types,
            jsonb_object_agg(c.node::text, true) as added
          from (select distinct on (e.from_id) e.from_id as node, e.to_id as parent, e.type
            from unnest(b.frontier) as f(node)
              join ${edgesSql(nodes)} as e on e.to_id = f.node and e.type = any(${sql.param(types)}::text[]) ${through}
            where (b.seen -> e.from_id::text) is null
            order by e.from_id, e.to_id, e.type) as c
        ) as n
      where b.depth < ${depth} and n.next is not null
    ),
    tree as (select b.given, b.root, x.type, x.parent, x.node, b.depth
      from bfs as b cross join lateral unnest(b.frontier, b.parents, b.types) as x(node, parent, type)
      where b.depth > 0)`;
}

/**
 * Rows of the tree walk from each of `roots` (keys as text), by depth: the root as it was given, and
 * the root, parent and record keys as the database writes its typed keys (so keys compare as the
 * database compares them: 'X' is not 'x', `2020-01-02T00:00:00Z` is `2020-01-02 00:00:00+00`).
 */
function treeSql(nodes: TableDescriptor, roots: string[], types: string[], depth: number): SQL {
  const key = keyFieldOf(nodes);
  return sql`${treeWalkCte(nodes, roots, types, depth)}
    select w.given, w.root::text as root, w.type, w.parent, w.node::text as node, w.depth, ${recordText(nodes)} as record
    from tree as w join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = w.node
    where ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    order by w.depth, ${typedValue(nodes, key)}`;
}

/**
 * `reached(node, depth)`: the records one type's walk from `id` reaches, for a flat list. Each record
 * once, at its smallest depth, never `id` itself (a cycle may lead back to it). The walk keeps
 * (node, depth) rows under UNION, so a cycle or a diamond adds at most one row per record and depth
 * and the walk ends at `depth`: it never loops. It carries no root, type or parent (one root, one
 * type, no tree to build), so rows are two integers to hash, and the edge type is an equality the
 * edges' `(to_id, type, from_id)` index takes as its own condition. `reached` comes sorted by key, so
 * the records are then read in index order (in hash order the same reads cost a quarter more).
 */
function reachedCte(nodes: TableDescriptor, id: string, direction: Direction, type: string, depth: number): SQL {
  const key = keyFieldOf(nodes);
  const [near, far] = direction === 'descendants' ? [sql.raw('to_id'), sql.raw('from_id')] : [sql.raw('from_id'), sql.raw('to_id')];
  const visible = softDeleteCondition(nodes, 'exclude');
  // Soft-deleted records end a walk: nothing behind them is reached through them.
  const through =
    visible === undefined ? sql`` : sql`join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = e.${far} and ${visible}`;
  const root = sql`${id}::text${castTo(key)}`;
  return sql`with recursive walk(node, depth) as (
      select e.${far}, 1 from ${edgesSql(nodes)} as e ${through}
      where e.${near} = ${root} and e.type = ${type}::text
      union
      select e.${far}, w.depth + 1 from walk as w
        join ${edgesSql(nodes)} as e on e.${near} = w.node and e.type = ${type}::text ${through}
      where w.depth < ${depth}
    ),
    reached as (select distinct on (node) node, depth from walk where node <> ${root} order by node, depth)`;
}

/**
 * The records one type's walk reaches as one JSON array text made by the database (null when none),
 * each record with its `_depth` and `_relationship_type`: thousands of descendants are never parsed
 * here only to be written again.
 */
function includedListSql(nodes: TableDescriptor, id: string, direction: Direction, type: string, depth: number): SQL {
  const key = keyFieldOf(nodes);
  const record = recordTextWith(nodes, [
    { key: '_depth', json: sql`w.depth::text` },
    { key: '_relationship_type', json: sql`${JSON.stringify(type)}::text` },
  ]);
  return sql`${reachedCte(nodes, id, direction, type, depth)}
    select '[' || string_agg(${record}, ',' order by w.depth, ${typedValue(nodes, key)}) || ']'
    from reached as w join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = w.node
    where ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}`;
}

/**
 * One record's answer as one statement's text: `{"data": record}` and, with `include=`, per selected
 * type its list under its inverse label (descendants) or its name (ancestors), flat and ordered by
 * depth; the text `null` when the record is not there (or not visible). `record` is the record's
 * statement (its one column the record's JSON text, a 404 already for a key this table cannot have).
 */
export function recordAnswerSql(record: SQL, id: string, plan: HierarchyPlan | undefined): SQL {
  const lists = new Map<string, SQL>();
  const directions: Direction[] =
    plan?.include === undefined ? [] : plan.include === 'both' ? ['descendants', 'ancestors'] : [plan.include];
  for (const direction of directions) {
    for (const type of plan!.table.hierarchy.types.filter((candidate) => plan!.types.includes(candidate.name))) {
      const label = direction === 'descendants' ? type.inverse : type.name;
      lists.set(
        label,
        plan!.depth === 0
          ? sql`'[]'`
          : sql`coalesce((${includedListSql(plan!.table.nodes, keyOf(plan!, id), direction, type.name, plan!.depth)}), '[]')`,
      );
    }
  }
  const members = [...lists].map(([label, list]) => sql` || ',' || ${JSON.stringify(label)}::text || ':' || ${list}`);
  // `offset 0` keeps the record's subquery where it is: pulled up, it would be read once per mention.
  return sql`select case when r.record is null then 'null' else '{"data":' || r.record${sql.join(members, sql``)} || '}' end as answer
    from (select (${record}) as record offset 0) as r`;
}

type WalkRow = {
  given: string;
  root: string;
  node: string;
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
 * Each of `records` as the root of its tree (`_depth` 0, `children[]` nested to the plan's depth over
 * every selected type): each record once per tree, under its closest parent. One statement for all
 * the roots. Answers the roots and how many records the trees hold together.
 */
export async function asTrees(db: Queryable, plan: HierarchyPlan, records: DataRecord[]): Promise<{ roots: DataRecord[]; size: number }> {
  const key = keyFieldOf(plan.table.nodes).name;
  // A root by the text its key was sent as; a tree's records by the database's text of their keys.
  const trees = new Map<string, { root: DataRecord; records: Map<string, DataRecord> }>();
  const roots = records.map((record) => {
    const root: DataRecord = { ...record, _depth: 0, children: [] };
    trees.set(String(record[key]), { root, records: new Map() });
    return root;
  });
  let size = roots.length;
  if (plan.depth > 0 && plan.types.length > 0 && roots.length > 0) {
    const keys = records.map((record) => String(record[key]));
    for (const row of await db.rows<WalkRow>(treeSql(plan.table.nodes, keys, plan.types, plan.depth))) {
      const tree = trees.get(row.given);
      if (tree === undefined) continue;
      const node: DataRecord = { ...parsed(row.record), _depth: Number(row.depth), _relationship_type: row.type, children: [] };
      tree.records.set(row.node, node);
      // Rows come by depth, so a parent (one level closer) is always placed before its children.
      const parent = row.parent === row.root ? tree.root : tree.records.get(row.parent);
      (parent?.children as DataRecord[] | undefined)?.push(node);
      size += 1;
    }
  }
  return { roots, size };
}

/** `{data: [root with _depth 0 and children[] nested], total}`: each record once, under its closest parent. */
export async function asTree(db: Queryable, plan: HierarchyPlan, record: DataRecord): Promise<{ data: DataRecord[]; total: number }> {
  const { roots, size } = await asTrees(db, plan, [record]);
  return { data: roots, total: size };
}

/**
 * `format=tree` on a list: the page holds only roots, records with no parent by the selected types
 * (no outgoing edge of those types to a visible record), so every tree of the forest is answered
 * once, from its top. A WHERE fragment of the list's one statement.
 */
export function rootsOnlyFilter(plan: HierarchyPlan): FilterCondition {
  const nodes = plan.table.nodes;
  const key = keyFieldOf(nodes);
  const visible = softDeleteCondition(nodes, 'exclude');
  // Inside the IN subquery `t` is the parent; at the EXISTS level it is still the listed record.
  const visibleParent =
    visible === undefined
      ? sql``
      : sql`and e.to_id in (select ${typedValue(nodes, key)} from ${tableSql(nodes)} as ${ROW} where ${visible})`;
  const compiled = sql`not exists (select 1 from ${edgesSql(nodes)} as e
    where e.from_id = ${typedValue(nodes, key)} and e.type = any(${sql.param(plan.types)}::text[]) ${visibleParent})`;
  return { parameter: 'format', field: key, path: [], operator: 'eq', raw: 'tree', compiled };
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
