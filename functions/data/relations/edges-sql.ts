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

export function listEdgesSql(nodes: TableDescriptor, filter: EdgeFilter, limit: number, offset: number): SQL {
  // The total is its own sub-plan (issue 15): a window count would read every match before the page.
  return sql`select ${edgeText()} as edge, (${countEdgesSql(nodes, filter)}) as total from ${edgesSql(nodes)} as e
    where ${edgeConditions(nodes, filter)} order by e.id ${pageWindowSql(limit, offset)}`;
}

export function countEdgesSql(nodes: TableDescriptor, filter: EdgeFilter): SQL {
  return sql`select count(*)::int as total from ${edgesSql(nodes)} as e where ${edgeConditions(nodes, filter)}`;
}

/** The visible records among `keys` (a soft-deleted record takes no new edge). */
export function visibleNodesSql(nodes: TableDescriptor, keys: string[]): SQL {
  const key = keyFieldOf(nodes);
  return sql`select (${typedValue(nodes, key)})::text as k from ${tableSql(nodes)} as ${ROW}
    where ${typedValue(nodes, key)} = any(${sql.param(keys)}::text[]${castTo(key)}[]) and ${softDeleteCondition(nodes, 'exclude') ?? sql`true`}
    for update`;
}

/** Outgoing edges per (from, type) among the given ends, for `max_outgoing`. */
export function outgoingCountsSql(nodes: TableDescriptor, froms: string[]): SQL {
  const cast = castTo(keyFieldOf(nodes));
  return sql`select e.from_id::text as from_id, e.type, count(*)::int as n from ${edgesSql(nodes)} as e
    where e.from_id = any(${sql.param(froms)}::text[]${cast}[]) group by e.from_id, e.type`;
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

export function findEdgeSql(nodes: TableDescriptor, id: string): SQL {
  return sql`select ${edgeText()} as edge from ${edgesSql(nodes)} as e where e.id = ${id}::bigint`;
}

export function deleteEdgesSql(nodes: TableDescriptor, ids: string[]): SQL {
  return sql`delete from ${edgesSql(nodes)} as e where e.id = any(${sql.param(ids)}::text[]::bigint[]) returning e.id`;
}
