// Turns a validated ListPlan into the one statement every record list runs (plain, searched or
// aggregated): the page and, planned apart from it, the total. Also builds the record's JSON shape,
// shared by every statement that returns records.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { offsetSql, pageWindowSql } from '#shared/db/counted-page.ts';
import {
  JSONB_DATA_COLUMN,
  SEARCH_CONFIGURATION,
  SEARCH_VECTOR_FIELD,
  type TableDescriptor,
} from '#functions/data/tables/table-descriptor.ts';
import { identifier, identifierLiteral, isSafeIdentifier } from '#shared/db/sql-identifiers.ts';
import { answeredValue, ROW, tableSql, typedValue } from './field-sql.ts';
import { compileCondition, type FilterCondition } from './filters.ts';
import { MAX_PAGE_SIZE, type Aggregate, type GroupTerm, type ListPlan, type RelatedJoin, type SortTerm } from './list-query.ts';

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

/**
 * `extra` are further key/value pairs (a searched record's rank), after the fields. A flat object
 * takes them when they fit; otherwise they join the jsonb chunks.
 */
function buildRecordJson(table: TableDescriptor, row: SQL, extra: SQL[] = []): SQL {
  const own = table.provider === 'flat_table' ? table.fields : table.fields.filter((field) => table.primaryKey.includes(field.name));
  const pairs = own.map(
    (field) => sql`${identifierLiteral(field.name)}::text, ${answeredValue(field, sql`${row}.${identifier(field.name)}`)}`,
  );
  if (table.provider === 'flat_table' && own.length + extra.length <= FIELDS_PER_OBJECT) {
    return pairs.length + extra.length === 0 ? sql`'{}'::json` : sql`json_build_object(${sql.join([...pairs, ...extra], sql`, `)})`;
  }
  const parts: SQL[] = [];
  for (let start = 0; start < pairs.length; start += FIELDS_PER_OBJECT)
    parts.push(sql`jsonb_build_object(${sql.join(pairs.slice(start, start + FIELDS_PER_OBJECT), sql`, `)})`);
  if (table.provider === 'jsonb') parts.push(sql`coalesce(${row}.${identifier(JSONB_DATA_COLUMN)}, '{}'::jsonb)`);
  if (extra.length > 0) parts.push(sql`jsonb_build_object(${sql.join(extra, sql`, `)})`);
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

/** A further member of a record's JSON text: its key and its value as JSON text (never SQL null). */
export interface JsonMember {
  key: string;
  json: SQL;
}

/**
 * The record as JSON text with `extra` members after its fields, for statements that answer
 * thousands of records in one text (a hierarchy's included lists). A flat table of at most
 * FIELDS_PER_OBJECT fields is written by concatenation: `to_json` renders each value exactly as
 * `json_build_object` does (the same conversion), without the latter's per-call work for every
 * argument, which made up about a sixth of a 2,000-record walk's statement. Other tables splice the
 * members into `recordText` (a record always has its key, so it is never `{}`).
 */
export function recordTextWith(table: TableDescriptor, extra: JsonMember[]): SQL {
  const spliced = extra.map((member) => sql` || ${jsonKey(member.key, ',')} || ${member.json}`);
  if (table.provider !== 'flat_table' || table.fields.length + extra.length > FIELDS_PER_OBJECT || table.fields.length === 0) {
    return sql`(left(${recordText(table)}, -1)${sql.join(spliced, sql``)} || '}')`;
  }
  const fields = table.fields.map(
    (field, index) =>
      sql`${jsonKey(field.name, index === 0 ? '{' : ',')} || coalesce(to_json(${answeredValue(field, sql`${ROW}.${identifier(field.name)}`)})::text, 'null')`,
  );
  return sql`(${sql.join(fields, sql` || `)}${sql.join(spliced, sql``)} || '}')`;
}

/**
 * `<before>"key":` as a SQL literal. Keys are field names or the platform's own (`_depth`): safe
 * identifiers, which need no escaping in JSON or in SQL.
 */
function jsonKey(key: string, before: string): SQL {
  if (!isSafeIdentifier(key)) throw new Error(`"${key}" is not a safe identifier`);
  return sql.raw(`'${before}"${key}":'`);
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
  return conditions.length === 0
    ? sql`true`
    : sql.join(
        conditions.map((condition) => sql`(${condition})`),
        sql` and `,
      );
}

function direction(term: SortTerm): SQL {
  return term.descending ? sql`desc` : sql`asc`;
}

/**
 * The related values one statement reads through joins (RelatedJoin), one join per dotted name, so
 * a group, its sort and its aggregates name the very same value. Ask for every value first; the
 * joins come after.
 */
class RelatedJoins {
  private readonly made = new Map<string, { join: SQL; value: SQL }>();

  /** A term's value when it is related (else undefined): through its join, or its scalar subquery. */
  valueOf(term: { expression?: SQL; joined?: RelatedJoin }): SQL | undefined {
    if (term.joined === undefined) return term.expression;
    let made = this.made.get(term.joined.path);
    if (made === undefined) {
      made = term.joined.as(sql.raw(`related_${this.made.size}`));
      this.made.set(term.joined.path, made);
    }
    return made.value;
  }

  sql(): SQL {
    return sql.join(
      [...this.made.values()].map((made) => made.join),
      sql` `,
    );
  }
}

/** Sort terms, then the primary key so pages never overlap. */
function orderSql(table: TableDescriptor, plan: ListPlan, joins: RelatedJoins): SQL {
  const terms = plan.sort.map((term) => sql`${joins.valueOf(term) ?? typedValue(table, term.field!)} ${direction(term)}`);
  if (plan.search !== undefined && plan.sort.length === 0) terms.push(sql`rank desc`);
  for (const key of table.primaryKey) {
    const field = table.fields.find((candidate) => candidate.name === key);
    if (field && !plan.sort.some((term) => term.name === key)) terms.push(sql`${typedValue(table, field)} asc`);
  }
  return terms.length === 0 ? sql`` : sql`order by ${sql.join(terms, sql`, `)}`;
}

/**
 * The rows a list answers about, without a page: the matching records, or the groups of an
 * aggregation. Its count is the answer's `total`; its EXPLAIN gives the planned one.
 */
export function matchesSql(table: TableDescriptor, plan: ListPlan): SQL {
  // Aggregates without groups answer one row, whatever matches.
  if (plan.aggregates && (plan.groupBy ?? []).length === 0) return sql`select 1`;
  const joins = new RelatedJoins();
  const groups = groupClause(table, plan, joins);
  return sql`select 1 from ${tableSql(table)} as ${ROW} ${joins.sql()}
    where ${whereSql(table, plan.filters, plan.deleted, plan.search)}
    ${groups}`;
}

/** The exact number of matches (or groups), as `total`. */
export function countSql(table: TableDescriptor, plan: ListPlan): SQL {
  return sql`select count(*) as total from (${matchesSql(table, plan)}) m`;
}

/**
 * The page with one row more than asked (so `_count=none` can tell whether a next page exists): each
 * row's record as JSON text, with its rank when searching, or an aggregation's group.
 */
export function pageSql(table: TableDescriptor, plan: ListPlan): SQL {
  // One row more than the page shows.
  const window = pageWindowSql(checkedPageSize(plan.pageSize + 1), plan.offset);
  const joins = new RelatedJoins();
  if (plan.aggregates) {
    const group = groupJson(table, plan, joins);
    const groups = groupClause(table, plan, joins);
    const order = groupOrderSql(table, plan, joins);
    return sql`select (${group})::text as record
      from ${tableSql(table)} as ${ROW} ${joins.sql()}
      where ${whereSql(table, plan.filters, plan.deleted, plan.search)}
      ${groups}
      ${order}
      ${window}`;
  }
  const order = orderSql(table, plan, joins);
  if (plan.search === undefined) {
    return sql`select (${recordJson(table)})::text as record
      from ${tableSql(table)} as ${ROW} ${joins.sql()}
      where ${whereSql(table, plan.filters, plan.deleted)}
      ${order}
      ${window}`;
  }
  const rank = sql`ts_rank(${searchVector()}, ${searchQuery(plan.search)})::float8`;
  return sql`select (${buildRecordJson(table, ROW, [sql`'rank'::text, ${rank}`])})::text as record, ${rank} as rank
    from ${tableSql(table)} as ${ROW} ${joins.sql()}
    where ${whereSql(table, plan.filters, plan.deleted, plan.search)}
    ${order}
    ${window}`;
}

/**
 * Every list of records (plain, searched, aggregated) as one statement answering one text,
 * `<total>,<rows>,<data>`: the total (`null` unless `_count=exact`), the rows read for the page (one
 * more than its size when a further row exists), and the page as a JSON array made by PostgreSQL
 * from the records it builds anyway (never parsed here only to be serialized again). The count and the page are separate
 * scalar subqueries, so each gets a plan of its own: the page's ORDER BY … LIMIT can walk an index
 * on the sort column and stop, where a window count beside it would need every match first.
 */
export function listSql(table: TableDescriptor, plan: ListPlan): SQL {
  const size = pageSizeLiteral(plan.pageSize);
  const total = plan.count === 'exact' ? exactTotalSql(table, plan, size) : sql`'null'`;
  return sql`select ${total} || ',' || count(*)::text || ',['
      || coalesce(array_to_string((array_agg(p.record))[1:${size}], ','), '') || ']' as answer
    from (${pageSql(table, plan)}) p`;
}

/**
 * The exact total, counted only when the page cannot tell it. A page that is not full and not past
 * the end (it found rows, or it is the first) holds the last of the matches, so the total is its
 * offset plus its rows: the rule `_count=planned` follows too (shared/db/counted-page.ts). The count
 * is an InitPlan, which PostgreSQL runs only when the CASE reaches it, so a list whose matches fit on
 * its page reads them once rather than twice (an expensive filter, a related one or an aggregation
 * with a few groups costs half). `count(*)` is over the page's rows, look-ahead row included.
 */
function exactTotalSql(table: TableDescriptor, plan: ListPlan, size: SQL): SQL {
  const offset = offsetSql(plan.offset);
  return sql`(case when count(*) <= ${size} and (count(*) > 0 or ${offset}::bigint = 0)
      then ${offset}::bigint + count(*) else (${countSql(table, plan)}) end)::text`;
}

/**
 * The page size as a literal rather than a parameter: with `limit $n` PostgreSQL prices a generic
 * plan as if a tenth of the rows were returned, so it keeps re-planning every run of a prepared list
 * statement (the larger part of its cost); with the literal the generic plan wins. Page sizes are
 * whole numbers from 1 to MAX_PAGE_SIZE (list-query.ts), one more for the look-ahead row, so the
 * literal is safe and the texts stay few.
 */
function pageSizeLiteral(size: number): SQL {
  return sql.raw(String(checkedPageSize(size)));
}

/** A page size from 1 to MAX_PAGE_SIZE, one more for the look-ahead row; anything else is a bug. */
function checkedPageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE + 1) throw new Error(`page size ${size} out of range`);
  return size;
}

function aggregateExpression(table: TableDescriptor, aggregate: Aggregate, joins: RelatedJoins): SQL {
  if (!aggregate.field) return sql`count(*)::int`;
  const value = joins.valueOf(aggregate) ?? typedValue(table, aggregate.field);
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

/** A group's value for each row: its own field's, or a related field's compiled elsewhere. */
function groupValue(table: TableDescriptor, group: GroupTerm, joins: RelatedJoins): SQL {
  return joins.valueOf(group) ?? typedValue(table, group.field);
}

function groupClause(table: TableDescriptor, plan: ListPlan, joins: RelatedJoins): SQL {
  const groups = plan.aggregates ? (plan.groupBy ?? []) : [];
  return groups.length === 0
    ? sql``
    : sql`group by ${sql.join(
        groups.map((group) => groupValue(table, group, joins)),
        sql`, `,
      )}`;
}

/** One group of an aggregation (or the one row without `_group_by`) as a jsonb object. */
function groupJson(table: TableDescriptor, plan: ListPlan, joins: RelatedJoins): SQL {
  const members = [
    // The key as a bound text: a related group's name has dots.
    ...(plan.groupBy ?? []).map((group) => sql`${group.name}::text, ${answeredValue(group.field, groupValue(table, group, joins))}`),
    ...plan.aggregates!.map((aggregate) => sql`${aggregate.alias}::text, ${aggregateExpression(table, aggregate, joins)}`),
  ];
  return sql`jsonb_build_object(${sql.join(members, sql`, `)})`;
}

/**
 * Sort terms, then the group fields the sort does not name, so groups tied on an aggregate (or on
 * some of the group fields) keep one order from page to page, as a record list's primary key does:
 * the group fields are a group's key.
 */
function groupOrderSql(table: TableDescriptor, plan: ListPlan, joins: RelatedJoins): SQL {
  const order = plan.sort.map(
    (term) =>
      sql`${joins.valueOf(term) ?? (term.field ? typedValue(table, term.field) : aggregateExpression(table, plan.aggregates!.find((a) => a.alias === term.name)!, joins))} ${direction(term)}`,
  );
  for (const group of plan.groupBy ?? []) {
    if (!plan.sort.some((term) => term.name === group.name)) order.push(sql`${groupValue(table, group, joins)} asc`);
  }
  return order.length === 0 ? sql`` : sql`order by ${sql.join(order, sql`, `)}`;
}
