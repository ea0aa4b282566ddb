// Filters and sorting on related records: `fk.field__op=value` (and longer paths, `a.b.field`) and
// `_sort=fk.field`. A related filter compiles to an EXISTS subquery per hop; a related value (sort,
// group, aggregate) over a chain of to-one relations to a LEFT JOIN of the chain where every hop
// meets a unique key (compile.ts joins each dotted name once), else to a scalar subquery per hop.
// The far field is read exactly as on its own
// table (same field list, same operators, same soft-delete visibility), so a relation reaches
// nothing a direct query of that table would not.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { softDeleteCondition } from '../records/query/compile.ts';
import { ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
import { compileCondition, parseFilterKey, type FilterCondition } from '../records/query/filters.ts';
import type { RelatedValue, SortTerm } from '../records/query/list-query.ts';
import { queryError } from '../records/query/query-error.ts';
import type { FieldDescriptor, TableDescriptor } from '../tables/table-descriptor.ts';
import { isToOne, type AppRelations, type Relation, type RelationHop, type RelationTable } from './relation-graph.ts';

/** The derived table's alias: inside it `t` is the related table, outside it `t` is the near row again. */
const NEAR = sql.raw('s');

function visibleRows(table: RelationTable): SQL {
  return softDeleteCondition(table.descriptor, 'exclude') ?? sql`true`;
}

/** Walks `a.b.rest` through relations; `rest` is what remains for the far table. */
function walk(
  relations: AppRelations,
  base: RelationTable,
  parameter: string,
  segments: string[],
  maxDepth: number,
): { path: Relation[]; rest: string } {
  if (segments.length - 1 > maxDepth) throw queryError(parameter, `goes through more than ${maxDepth} relationships`);
  const path: Relation[] = [];
  let table = base;
  for (const name of segments.slice(0, -1)) {
    const relation = relations.resolve(table, name, parameter);
    path.push(relation);
    table = relation.target;
  }
  return { path, rest: segments[segments.length - 1]! };
}

/** `exists` a row of the hop's target, matching `inner`, whose key meets the near row's field. */
function existsThrough(hop: RelationHop, inner: SQL): SQL {
  const target = hop.target.descriptor;
  return sql`exists (select 1 from (select ${typedValue(target, hop.targetField)} as k from ${tableSql(target)} as ${ROW}
      where ${visibleRows(hop.target)} and (${inner})) as ${NEAR}
    where ${NEAR}.k = ${typedValue(hop.near.descriptor, hop.baseField)})`;
}

function hopsOf(path: Relation[]): RelationHop[] {
  return path.flatMap((relation) => relation.hops);
}

/** `author.name__icontains=x`, `comments.body=y`, `tags.label__in=a,b`: a filter whose SQL is made here. */
export function relatedFilter(relations: AppRelations, base: RelationTable, key: string, raw: string, maxDepth: number): FilterCondition {
  const { path, rest } = walk(relations, base, key, key.split('.'), maxDepth);
  const far = path[path.length - 1]!.target;
  let parsed: Omit<FilterCondition, 'raw'> | undefined;
  try {
    parsed = parseFilterKey(far.descriptor, rest);
  } catch (error) {
    throw renamed(error, key);
  }
  if (parsed === undefined) throw queryError(key, `unknown field "${rest}" of table "${far.name}"`);
  const condition: FilterCondition = { ...parsed, parameter: key, raw };
  let compiled = compileCondition(far.descriptor, condition);
  for (const hop of hopsOf(path).reverse()) compiled = existsThrough(hop, compiled);
  return { ...condition, compiled };
}

/** `_sort=author.name`, `_sort=-post.author.name`: a chain of to-one relations, then a field. */
export function relatedSort(
  relations: AppRelations,
  base: RelationTable,
  parameter: string,
  name: string,
  descending: boolean,
  maxDepth: number,
): SortTerm {
  return { name, descending, ...relatedValue(relations, base, parameter, name, maxDepth, 'sorting by') };
}

/**
 * A related field's value for each row, over a chain of to-one relations (one scalar subquery per
 * hop): `_sort`, `_group_by` and `_aggregate` on `author.name`. The far field is found exactly as on
 * its own table, and soft-deleted related records give null.
 */
export function relatedValue(
  relations: AppRelations,
  base: RelationTable,
  parameter: string,
  name: string,
  maxDepth: number,
  use = 'grouping or aggregating by',
): RelatedValue {
  const { path, rest } = walk(relations, base, parameter, name.split('.'), maxDepth);
  const toMany = path.find((relation) => !isToOne(relation));
  if (toMany !== undefined)
    throw queryError(parameter, `"${toMany.name}" leads to many records; ${use} a related field needs to-one relations`);
  const far = path[path.length - 1]!.target;
  const field = far.descriptor.fields.find((candidate) => candidate.name === rest);
  if (field === undefined) throw queryError(parameter, `unknown field "${rest}" of table "${far.name}"`);
  const hops = hopsOf(path);
  let value = typedValue(far.descriptor, field);
  for (const hop of [...hops].reverse()) {
    const target = hop.target.descriptor;
    value = sql`(select ${NEAR}.v from (select ${typedValue(target, hop.targetField)} as k, ${value} as v from ${tableSql(target)} as ${ROW}
        where ${visibleRows(hop.target)}) as ${NEAR}
      where ${NEAR}.k = ${typedValue(hop.near.descriptor, hop.baseField)})`;
  }
  if (!hops.every((hop) => isUniqueKey(hop.target.descriptor, hop.targetField))) return { field, expression: value };
  return { field, expression: value, joined: { path: name, as: (alias) => joinedValue(hops, far.descriptor, field, alias) } };
}

/** A field no two rows share: the whole primary key, or declared unique. */
function isUniqueKey(table: TableDescriptor, field: FieldDescriptor): boolean {
  return field.constraints.unique === true || (table.primaryKey.length === 1 && table.primaryKey[0] === field.name);
}

/**
 * The far field over a chain of to-one hops as one LEFT JOIN of nested derived tables, each keyed by
 * the field the hop before it meets (`alias_1`, `alias_2`, … inside). Soft-deleted related records
 * are left out of each derived table, so they give null, as the scalar form does.
 */
function joinedValue(hops: RelationHop[], far: TableDescriptor, field: FieldDescriptor, alias: SQL): { join: SQL; value: SQL } {
  let inner: { derived: SQL; hop: RelationHop; alias: SQL } | undefined;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index]!;
    const target = hop.target.descriptor;
    const derived =
      inner === undefined
        ? sql`select ${typedValue(target, hop.targetField)} as k, ${typedValue(far, field)} as v
            from ${tableSql(target)} as ${ROW} where ${visibleRows(hop.target)}`
        : sql`select ${typedValue(target, hop.targetField)} as k, ${inner.alias}.v as v
            from ${tableSql(target)} as ${ROW}
            left join (${inner.derived}) as ${inner.alias} on ${inner.alias}.k = ${typedValue(target, inner.hop.baseField)}
            where ${visibleRows(hop.target)}`;
    inner = { derived, hop, alias: index === 0 ? alias : sql`${alias}_${sql.raw(String(index))}` };
  }
  const first = inner!;
  return {
    join: sql`left join (${first.derived}) as ${alias} on ${alias}.k = ${typedValue(first.hop.near.descriptor, first.hop.baseField)}`,
    value: sql`${alias}.v`,
  };
}

/** The far table's own error names its part of the key; the client sent the whole key. */
function renamed(error: unknown, key: string): unknown {
  if (!(error instanceof Error) || !('fieldErrors' in error)) return error;
  const problems = Object.values((error as { fieldErrors?: Record<string, string[]> }).fieldErrors ?? {}).flat();
  return problems.length === 0 ? error : queryError(key, problems.join('; '));
}
