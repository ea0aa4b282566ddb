// Reads of a hierarchy table: a record with its descendants and/or ancestors (`include`, `depth`,
// `graph_types`), a record as a tree (`format=tree`), and a page as a graph (`format=graph`). Walks
// are one recursive CTE, breadth first with a visited set per root, that stops at `depth` and never
// loops, its work bounded by the edges it follows whatever the depth. Each record is answered once,
// at its smallest depth. Soft-deleted records are neither answered nor walked through.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { recordText, recordTextWith, softDeleteCondition } from '../records/query/compile.ts';
import { castTo, ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
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
 * `bfs(given, root, frontier, parents, types, seen, depth)`: the walk from each of `roots` over edges
 * of `types`, breadth first with a visited set per root, one row per root and level. `frontier` holds
 * the records first reached at that level, each record once per root and at its smallest depth, with
 * (in `parents` and `types`) its parent one level closer, the smallest such key, then the type's
 * name; `seen` holds every record reached so far. Descendants follow edges backwards (A → B of type
 * manager means A reports to B, so A is B's descendant), ancestors forwards. Each record is expanded
 * once per root and the walk ends when a level adds nothing, so its work is the edges out of what it
 * reaches plus one pass over `seen` per level, whatever the depth and however dense the graph (a walk
 * keeping one row per record and depth was edges × depth: 85 records all linked, `include=both` at
 * depth 100, 950 ms; now 7 ms).
 * The root is seen from the start, so a cycle never leads back to it. Each frontier record's edges
 * are one index probe, in a subquery `offset 0` keeps apart (joined to the frontier, a table of a few
 * thousand edges was read whole at every level). An edge's far end is tested with `not in (select
 * unnest(seen))`, a set the database hashes once per level and compares as it compares the typed
 * keys, never with `<> all`, a scan of `seen` per edge; `seen` grows by appending to an array (a
 * jsonb object of the keys' text, rebuilt at every level, cost the benchmark's plain tree an eighth).
 */
function walkCte(nodes: TableDescriptor, roots: string[], types: string[], depth: number, direction: Direction): SQL {
  const key = keyFieldOf(nodes);
  const cast = castTo(key);
  const [near, far] = direction === 'descendants' ? [sql.raw('to_id'), sql.raw('from_id')] : [sql.raw('from_id'), sql.raw('to_id')];
  const visible = softDeleteCondition(nodes, 'exclude');
  // Soft-deleted records end a walk: nothing behind them is reached through them.
  const through =
    visible === undefined ? sql`` : sql`join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = e.${far} and ${visible}`;
  // One root or one type goes as a single value, not a one-element array: PostgreSQL sizes an array
  // parameter at 100 elements in a generic plan, which put that plan at ten times the cost of a
  // custom one, so a record's include= was planned anew on every execution (0.29 ms of planning
  // against 0.16 of running, for a walk of six records). As single values, both plans cost the
  // same and the generic one is kept.
  const rootRows =
    roots.length === 1 ? sql`(select ${roots[0]}::text as given) as r` : sql`unnest(${sql.param(roots)}::text[]) as r(given)`;
  const ofTypes = types.length === 1 ? sql`e.type = ${types[0]}::text` : sql`e.type = any(${sql.param(types)}::text[])`;
  return sql`with recursive bfs(given, root, frontier, parents, types, seen, depth) as (
      select r.given, r.given${cast}, array[r.given${cast}], null::text[], null::text[], array[r.given${cast}], 0
      from ${rootRows}
      union all
      select b.given, b.root, n.next, n.parents, n.types, b.seen || n.next, b.depth + 1 from bfs as b
        cross join lateral (
          select array_agg(c.node) as next, array_agg(c.parent::text) as parents, array_agg(c.type) as types
          from (select distinct on (e.${far}) e.${far} as node, e.${near} as parent, e.type
            from unnest(b.frontier) as f(node)
              cross join lateral (select e.from_id, e.to_id, e.type from ${edgesSql(nodes)} as e
                where e.${near} = f.node and ${ofTypes} offset 0) as e ${through}
            where e.${far} not in (select unnest(b.seen))
            order by e.${far}, e.${near}, e.type) as c
        ) as n
      where b.depth < ${depth} and n.next is not null
    )`;
}

/**
 * Rows of the tree walk from each of `roots` (keys as text), by depth: the root as it was given, and
 * the root, parent and record keys as the database writes its typed keys (so keys compare as the
 * database compares them: 'X' is not 'x', `2020-01-02T00:00:00Z` is `2020-01-02 00:00:00+00`).
 */
function treeSql(nodes: TableDescriptor, roots: string[], types: string[], depth: number): SQL {
  const key = keyFieldOf(nodes);
  return sql`${walkCte(nodes, roots, types, depth, 'descendants')}
    select b.given, b.root::text as root, x.type, x.parent, x.node::text as node, b.depth, ${recordText(nodes)} as record
    from bfs as b cross join lateral unnest(b.frontier, b.parents, b.types) as x(node, parent, type)
      join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = x.node
    where b.depth > 0 and ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    order by b.depth, ${typedValue(nodes, key)}`;
}

/**
 * The records one type's walk from `id` reaches as one JSON array text made by the database (null
 * when none), each record with its `_depth` and `_relationship_type`: thousands of descendants are
 * never parsed here only to be written again. A level's records are read by `= any(frontier)`, one
 * index scan over its sorted keys (unnested and joined one by one, the statement cost a quarter more).
 */
function includedListSql(nodes: TableDescriptor, id: string, direction: Direction, type: string, depth: number): SQL {
  const key = keyFieldOf(nodes);
  const record = recordTextWith(nodes, [
    { key: '_depth', json: sql`w.depth::text` },
    { key: '_relationship_type', json: sql`${JSON.stringify(type)}::text` },
  ]);
  return sql`${walkCte(nodes, [id], [type], depth, direction)}
    select '[' || string_agg(${record}, ',' order by w.depth, ${typedValue(nodes, key)}) || ']'
    from bfs as w join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = any(w.frontier)
    where w.depth > 0 and ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}`;
}

/**
 * One record's answer as one statement's text: `{"data": record}` and, with `include=`, per selected
 * type its list under its inverse label (descendants) or its name (ancestors), flat and ordered by
 * depth; the text `null` when the record is not there (or not visible). `record` is the record's
 * statement (its one column the record's JSON text) and `key` its key as bound (parsed already: a
 * key this table cannot have is a 404 before this).
 */
export function recordAnswerSql(record: SQL, key: string, plan: HierarchyPlan | undefined): SQL {
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
          : sql`coalesce((${includedListSql(plan!.table.nodes, key, direction, type.name, plan!.depth)}), '[]')`,
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
