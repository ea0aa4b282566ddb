// Turns a validated ListPlan into one parameterized statement: the page of records with the total
// (`count(*) over ()`) and the search rank, or the aggregation's groups. Also builds the record's
// JSON shape, shared by every statement that returns records.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import {
  JSONB_DATA_COLUMN,
  SEARCH_CONFIGURATION,
  SEARCH_VECTOR_FIELD,
  type FieldDescriptor,
  type TableDescriptor,
} from '#functions/data/tables/table-descriptor.ts';
import { identifier, identifierLiteral } from '#shared/db/sql-identifiers.ts';
import { answeredValue, ROW, tableSql, typedValue } from './field-sql.ts';
import { compileCondition, type FilterCondition } from './filters.ts';
import { MAX_PAGE_SIZE, type Aggregate, type ListPlan, type SortTerm } from './list-query.ts';

/** jsonb_build_object takes at most 100 arguments: build wide records from chunks of 50 fields. */
const FIELDS_PER_OBJECT = 50;

/**
 * The record of the usual alias, built once per descriptor: it names every field, so for a wide
 * table it is most of a list statement's pieces, and descriptors are kept between requests.
 */
const recordJsonOfRow = new WeakMap<TableDescriptor, SQL>();

/**
 * The record as one JSON value, so both drivers return dates, numbers and objects alike. A flat
 * table of at most FIELDS_PER_OBJECT fields gets `json_build_object`: its keys come in the order
 * the schema declares them, and PostgreSQL writes it out as it builds it, where jsonb first builds a
 * sorted binary object and then prints that (a tenth of a 10k-record bulk create). Wider tables and
 * jsonb tables, whose stored `data` is jsonb already, are built and merged as jsonb.
 */
export function recordJson(table: TableDescriptor, row: SQL = ROW): SQL {
  if (row !== ROW) return buildRecordJson(table, row);
  let built = recordJsonOfRow.get(table);
  if (built === undefined) {
    built = buildRecordJson(table, ROW);
    recordJsonOfRow.set(table, built);
  }
  return built;
}

function buildRecordJson(table: TableDescriptor, row: SQL): SQL {
  const own = table.provider === 'flat_table' ? table.fields : table.fields.filter((field) => table.primaryKey.includes(field.name));
  const pairsOf = (fields: readonly FieldDescriptor[]) =>
    sql.join(fields.map((field) => sql`${identifierLiteral(field.name)}::text, ${answeredValue(field, sql`${row}.${identifier(field.name)}`)}`), sql`, `);
  if (table.provider === 'flat_table' && own.length <= FIELDS_PER_OBJECT) return own.length === 0 ? sql`'{}'::json` : sql`json_build_object(${pairsOf(own)})`;
  const parts: SQL[] = [];
  for (let start = 0; start < own.length; start += FIELDS_PER_OBJECT) parts.push(sql`jsonb_build_object(${pairsOf(own.slice(start, start + FIELDS_PER_OBJECT))})`);
  if (table.provider === 'jsonb') parts.push(sql`coalesce(${row}.${identifier(JSONB_DATA_COLUMN)}, '{}'::jsonb)`);
  if (parts.length === 0) return sql`'{}'::jsonb`;
  return sql.join(parts, sql` || `);
}

/**
 * The record as JSON text: the drivers would parse json and round integers past 2^53, so records
 * travel as text and are parsed with exact integers (or joined into an answer text as they are).
 */
export function recordText(table: TableDescriptor): SQL {
  return sql`(${recordJson(table)})::text`;
}

export function softDeleteCondition(table: TableDescriptor, deleted: ListPlan['deleted']): SQL | undefined {
  if (!table.softDelete) return deleted === 'only' ? sql`false` : undefined;
  const field = table.fields.find((candidate) => candidate.name === 'is_deleted');
  if (!field || deleted === 'include') return undefined;
  const value = typedValue(table, field);
  return deleted === 'only' ? sql`${value} is true` : sql`${value} is not true`;
}

function searchQuery(search: string): SQL {
  return sql`websearch_to_tsquery(${SEARCH_CONFIGURATION}::regconfig, ${search})`;
}

function searchVector(): SQL {
  return sql`${ROW}.${identifier(SEARCH_VECTOR_FIELD)}`;
}

/** The WHERE clause of filters, soft-delete visibility and search (`true` when there is none). */
export function whereSql(table: TableDescriptor, filters: FilterCondition[], deleted: ListPlan['deleted'], search?: string): SQL {
  const conditions = filters.map((filter) => compileCondition(table, filter));
  const visibility = softDeleteCondition(table, deleted);
  if (visibility) conditions.push(visibility);
  if (search !== undefined) conditions.push(sql`${searchVector()} @@ ${searchQuery(search)}`);
  return conditions.length === 0 ? sql`true` : sql.join(conditions.map((condition) => sql`(${condition})`), sql` and `);
}

function direction(term: SortTerm): SQL {
  return term.descending ? sql`desc` : sql`asc`;
}

/** Sort terms, then the primary key so pages never overlap. */
function orderSql(table: TableDescriptor, plan: ListPlan): SQL {
  const terms = plan.sort.map((term) => sql`${typedValue(table, term.field!)} ${direction(term)}`);
  if (plan.search !== undefined && plan.sort.length === 0) terms.push(sql`rank desc`);
  for (const key of table.primaryKey) {
    const field = table.fields.find((candidate) => candidate.name === key);
    if (field && !plan.sort.some((term) => term.name === key)) terms.push(sql`${typedValue(table, field)} asc`);
  }
  return terms.length === 0 ? sql`` : sql`order by ${sql.join(terms, sql`, `)}`;
}

/** One page of records with `total` on every row and `rank` when searching. */
export function listSql(table: TableDescriptor, plan: ListPlan): SQL {
  const rank = plan.search !== undefined ? sql`, ts_rank(${searchVector()}, ${searchQuery(plan.search)})::float8 as rank` : sql``;
  return sql`select ${recordText(table)} as record, (count(*) over ())::int as total${rank}
    from ${tableSql(table)} as ${ROW}
    where ${whereSql(table, plan.filters, plan.deleted, plan.search)}
    ${orderSql(table, plan)}
    limit ${pageSizeLiteral(plan.pageSize)} offset ${plan.offset}`;
}

/**
 * A plain list's whole answer (`{data, total, page, page_size}`) as JSON text made by PostgreSQL from
 * the records it builds anyway, or null for an empty page (whose total needs a count of its own).
 */
export function listAnswerSql(table: TableDescriptor, plan: ListPlan): SQL {
  return sql`select '{"data":[' || string_agg(q.record, ',') || '],"total":' || max(q.total)::text
      || ',"page":' || ${plan.page}::int::text || ',"page_size":' || ${plan.pageSize}::int::text || '}'
    from (${listSql(table, plan)}) q`;
}

/**
 * The page size as a literal rather than a parameter: with `limit $n` PostgreSQL prices a generic
 * plan as if a tenth of the rows were returned, so it keeps re-planning every run of a prepared list
 * statement (the larger part of its cost); with the literal the generic plan wins. Page sizes are
 * whole numbers from 1 to MAX_PAGE_SIZE (list-query.ts), so the literal is safe and the texts stay few.
 */
function pageSizeLiteral(pageSize: number): SQL {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new Error(`page size ${pageSize} out of range`);
  return sql.raw(String(pageSize));
}

/** The number of matching records, for a page past the end (where no row carries the total). */
export function countSql(table: TableDescriptor, plan: ListPlan): SQL {
  return sql`select count(*)::int as total from ${tableSql(table)} as ${ROW}
    where ${whereSql(table, plan.filters, plan.deleted, plan.search)}`;
}

function aggregateExpression(table: TableDescriptor, aggregate: Aggregate): SQL {
  if (!aggregate.field) return sql`count(*)::int`;
  const value = typedValue(table, aggregate.field);
  switch (aggregate.fn) {
    case 'count':
      return sql`count(${value})::int`;
    case 'count_distinct':
      return sql`count(distinct ${value})::int`;
    case 'sum':
      return sql`sum(${value})::float8`;
    case 'avg':
      return sql`avg(${value})::float8`;
    case 'min':
      return sql`to_jsonb(${answeredValue(aggregate.field, sql`min(${value})`)})`;
    case 'max':
      return sql`to_jsonb(${answeredValue(aggregate.field, sql`max(${value})`)})`;
  }
}

/** Groups (or one row without `_group_by`) as a jsonb object per row, paged, with the group count. */
export function aggregateSql(table: TableDescriptor, plan: ListPlan): SQL {
  const groups = plan.groupBy ?? [];
  const members = [
    ...groups.map((field) => sql`${identifierLiteral(field.name)}::text, ${answeredValue(field, typedValue(table, field))}`),
    ...plan.aggregates!.map((aggregate) => sql`${aggregate.alias}::text, ${aggregateExpression(table, aggregate)}`),
  ];
  const groupClause = groups.length === 0 ? sql`` : sql`group by ${sql.join(groups.map((field) => typedValue(table, field)), sql`, `)}`;
  const order =
    plan.sort.length > 0
      ? plan.sort.map((term) => sql`${term.field ? typedValue(table, term.field) : aggregateExpression(table, plan.aggregates!.find((a) => a.alias === term.name)!)} ${direction(term)}`)
      : groups.map((field) => sql`${typedValue(table, field)} asc`);
  const orderClause = order.length === 0 ? sql`` : sql`order by ${sql.join(order, sql`, `)}`;
  return sql`select jsonb_build_object(${sql.join(members, sql`, `)}) as record, (count(*) over ())::int as total
    from ${tableSql(table)} as ${ROW}
    where ${whereSql(table, plan.filters, plan.deleted, plan.search)}
    ${groupClause}
    ${orderClause}
    limit ${pageSizeLiteral(plan.pageSize)} offset ${plan.offset}`;
}

