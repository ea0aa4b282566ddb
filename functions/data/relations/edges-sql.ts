// SQL of a hierarchy's edges table: list with filters, insert of a batch, update, delete by ids, and
// the counts `max_outgoing` is checked against. Edges answer as JSON text made by the database, the
// ends in their key's JSON type.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import { stringifyExactJson } from '#shared/json/exact-json.ts';
import { answeredValue, castTo, ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
import { softDeleteCondition } from '../records/query/compile.ts';
import type { FieldDescriptor, TableDescriptor } from '../tables/table-descriptor.ts';
import { edgesTableName } from '../tables/hierarchy-schema.ts';
import { pageWindowSql } from '#shared/db/counted-page.ts';

export function edgesSql(nodes: TableDescriptor): SQL {
  return tenantTable(nodes, edgesTableName(nodes.tableName));
}

export function keyFieldOf(nodes: TableDescriptor): FieldDescriptor {
  return nodes.fields.find((field) => field.name === nodes.primaryKey[0])!;
}

/** An edge of alias `e` as JSON text. */
export function edgeText(alias: SQL = sql.raw('e')): SQL {
  return sql`json_build_object('id', ${alias}.id, 'from_id', ${alias}.from_id, 'to_id', ${alias}.to_id, 'type', ${alias}.type,
    'metadata', ${alias}.metadata, 'created_at', ${answeredValue({ type: 'datetime' }, sql`${alias}.created_at`)})::text`;
}

export interface EdgeFilter {
  from?: string;
  to?: string;
  types?: string[];
}

function edgeConditions(nodes: TableDescriptor, filter: EdgeFilter): SQL {
  const cast = castTo(keyFieldOf(nodes));
  const conditions: SQL[] = [sql`true`];
  if (filter.from !== undefined) conditions.push(sql`e.from_id = ${filter.from}::text${cast}`);
  if (filter.to !== undefined) conditions.push(sql`e.to_id = ${filter.to}::text${cast}`);
  if (filter.types !== undefined) conditions.push(sql`e.type = any(${sql.param(filter.types)}::text[])`);
  return sql.join(conditions, sql` and `);
}

/**
 * A page of edges: `limit` rows (the page and its look-ahead row) with, when `counted`, the total
 * beside each. The total is its own sub-plan (issue 15): a window count would read every match
 * before the page.
 */
export function listEdgesSql(nodes: TableDescriptor, filter: EdgeFilter, limit: number, offset: number, counted: boolean): SQL {
  const total = counted ? sql`(${countEdgesSql(nodes, filter)})` : sql`null::int`;
  return sql`select ${edgeText()} as edge, ${total} as total from ${edgesSql(nodes)} as e
    where ${edgeConditions(nodes, filter)} order by e.id ${pageWindowSql(limit, offset)}`;
}

/** The edges a list's filter matches, for the planner's estimate under `_count=planned`. */
export function matchingEdgesSql(nodes: TableDescriptor, filter: EdgeFilter): SQL {
  return sql`select 1 from ${edgesSql(nodes)} as e where ${edgeConditions(nodes, filter)}`;
}

export function countEdgesSql(nodes: TableDescriptor, filter: EdgeFilter): SQL {
  return sql`select count(*)::int as total from ${edgesSql(nodes)} as e where ${edgeConditions(nodes, filter)}`;
}

/**
 * Which of `keys` (texts as given) name a visible record (a soft-deleted record takes no new edge),
 * each with the database's text of its typed key: keys compare as the database compares them, never
 * folded nor reformatted here. The records' rows stay locked, taken in key order so two batches
 * over the same records wait for each other instead of deadlocking.
 */
export function visibleNodesSql(nodes: TableDescriptor, keys: string[]): SQL {
  const key = keyFieldOf(nodes);
  return sql`select x.given, (${typedValue(nodes, key)})::text as k
    from unnest(${sql.param(keys)}::text[]) as x(given) join ${tableSql(nodes)} as ${ROW} on ${typedValue(nodes, key)} = x.given${castTo(key)}
    where ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    order by ${typedValue(nodes, key)} for update of ${ROW}`;
}

/** Outgoing edges per (from, type) among the given ends, for `max_outgoing`; `from_id` as the database writes the key. */
export function outgoingCountsSql(nodes: TableDescriptor, froms: string[]): SQL {
  const cast = castTo(keyFieldOf(nodes));
  return sql`select e.from_id::text as from_id, e.type, count(*)::int as n from ${edgesSql(nodes)} as e
    where e.from_id = any(${sql.param(froms)}::text[]${cast}[]) group by e.from_id, e.type`;
}

/** The positions in `edges` of those already stored (one edge per from, type and to). */
export function storedEdgesSql(nodes: TableDescriptor, edges: Array<Pick<NewEdge, 'from_id' | 'to_id' | 'type'>>, exceptId?: string): SQL {
  const cast = castTo(keyFieldOf(nodes));
  // A PATCH's own edge is not in its way.
  const other = exceptId === undefined ? sql`` : sql`and e.id <> ${exceptId}::bigint`;
  return sql`select (x.i - 1)::int as i from jsonb_array_elements(${stringifyExactJson(edges)}::jsonb) with ordinality as x(v, i)
    where exists (select 1 from ${edgesSql(nodes)} as e
      where e.from_id = (x.v->>'from_id')${cast} and e.type = x.v->>'type' and e.to_id = (x.v->>'to_id')${cast} ${other})
    order by x.i`;
}

export interface NewEdge {
  from_id: string;
  to_id: string;
  type: string;
  metadata: Record<string, unknown>;
}

export function insertEdgesSql(nodes: TableDescriptor, edges: NewEdge[]): SQL {
  const cast = castTo(keyFieldOf(nodes));
  return sql`insert into ${edgesSql(nodes)} as e (from_id, to_id, type, metadata)
    select (x->>'from_id')${cast}, (x->>'to_id')${cast}, x->>'type', x->'metadata' from jsonb_array_elements(${stringifyExactJson(edges)}::jsonb) as x
    returning ${edgeText()} as edge`;
}

export function updateEdgeSql(nodes: TableDescriptor, id: string, change: Partial<NewEdge>): SQL {
  const cast = castTo(keyFieldOf(nodes));
  const sets: SQL[] = [];
  if (change.from_id !== undefined) sets.push(sql`from_id = ${change.from_id}::text${cast}`);
  if (change.to_id !== undefined) sets.push(sql`to_id = ${change.to_id}::text${cast}`);
  if (change.type !== undefined) sets.push(sql`type = ${change.type}`);
  if (change.metadata !== undefined) sets.push(sql`metadata = ${stringifyExactJson(change.metadata)}::jsonb`);
  return sql`update ${edgesSql(nodes)} as e set ${sql.join(sets, sql`, `)} where e.id = ${id}::bigint returning ${edgeText()} as edge`;
}

/** One edge, with its ends as the database writes their keys (`from_key`, `to_key`). */
export function findEdgeSql(nodes: TableDescriptor, id: string): SQL {
  return sql`select ${edgeText()} as edge, e.from_id::text as from_key, e.to_id::text as to_key
    from ${edgesSql(nodes)} as e where e.id = ${id}::bigint for update`;
}

export function deleteEdgesSql(nodes: TableDescriptor, ids: string[]): SQL {
  return sql`delete from ${edgesSql(nodes)} as e where e.id = any(${sql.param(ids)}::text[]::bigint[]) returning e.id`;
}
