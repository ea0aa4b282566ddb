// Reads a record list's query parameters into a validated plan: filters, sort, pagination, search,
// soft-delete visibility and aggregation. Every parameter is either understood or a 400 naming it.
import { COUNT_MODE_PROBLEM, countModeOf, type CountMode } from '#shared/http/pagination.ts';
import type { FieldDescriptor, TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import type { SQL } from 'drizzle-orm';
import { parseFilterKey, type FilterCondition } from './filters.ts';
import { queryError } from './query-error.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

export type AggregateFunction = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';

export interface Aggregate {
  fn: AggregateFunction;
  /** Undefined for `count(*)`. */
  field?: FieldDescriptor;
  /** The answer's key: `count` for `count(*)`, else `<function>_<field>` (`sum_author.salary` for a related one). */
  alias: string;
  /** Already compiled elsewhere: the value of a related field (functions/data/relations). */
  expression?: SQL;
  joined?: RelatedJoin;
}

/** A field of `_group_by`: the table's own, or a related one (`author.name`) compiled elsewhere. */
export interface GroupTerm {
  /** As the client named it, and the group's key in the answer. */
  name: string;
  field: FieldDescriptor;
  expression?: SQL;
  joined?: RelatedJoin;
}

/** A related field's value for each row (a chain of to-one relations, then a field), compiled elsewhere. */
export interface RelatedValue {
  field: FieldDescriptor;
  /** The value as a scalar subquery: usable anywhere, run once per row. */
  expression: SQL;
  /** The same value through a join, when the chain can be joined. */
  joined?: RelatedJoin;
}

/**
 * A related value through a LEFT JOIN, possible when every hop meets a unique key (so the join never
 * repeats a row): the planner can then hash the related table once instead of looking it up for every
 * row, which a sort or a grouping over many rows needs.
 */
export interface RelatedJoin {
  /** The dotted name (`author.name`): the terms of one statement naming it share one join. */
  path: string;
  /** The join under `alias`, and the value it gives. */
  as(alias: SQL): { join: SQL; value: SQL };
}

export interface SortTerm {
  /** A field, or an aggregate alias / group field in an aggregation. */
  name: string;
  field?: FieldDescriptor;
  descending: boolean;
  /** Already compiled elsewhere: a related field (functions/data/relations). */
  expression?: SQL;
  /** The related field through a join, when it can be joined. */
  joined?: RelatedJoin;
}

/**
 * What another module adds to the query language of a table: related filters and sorting (dotted
 * names) and parameters of its own (`populate` and its controls, the hierarchy forms).
 */
export interface QueryExtensions {
  /** True when the parameter belongs to the extension (it is then not read as a filter). */
  claims(key: string, raw: string): boolean;
  relatedFilter(key: string, raw: string): FilterCondition;
  relatedSort(parameter: string, name: string, descending: boolean): SortTerm;
  /** `_group_by=author.name`, `_aggregate=sum(author.salary)`: what a related field is for each row. */
  relatedValue(parameter: string, name: string): RelatedValue;
}

export interface ListPlan {
  filters: FilterCondition[];
  sort: SortTerm[];
  /** Page pagination; with `limit`/`offset` the page is derived from them. */
  page: number;
  pageSize: number;
  offset: number;
  /** How the client paged, so a `next` link pages the same way. */
  pagedBy: 'page' | 'offset';
  search?: string;
  deleted: 'exclude' | 'include' | 'only';
  aggregates?: Aggregate[];
  groupBy?: GroupTerm[];
  /** `_count`: the exact total (the spec's), the planner's estimate, or none at all. */
  count: CountMode;
}

const NOT_YET = new Set(['populate', 'format', 'include', 'depth', 'graph_types']);
const CONTROL = new Set([
  'page',
  'page_size',
  'limit',
  'offset',
  '_sort',
  'ordering',
  'search',
  'include_deleted',
  'only_deleted',
  '_aggregate',
  '_group_by',
  '_count',
]);
const AGGREGATE = /^(count|count_distinct|sum|avg|min|max)\(\s*(\*|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)\s*\)$/;
const NUMERIC_TYPES = new Set(['number', 'integer', 'year']);
/** Types PostgreSQL's min() and max() take: booleans, JSON values and UUIDs have no such aggregate. */
const ORDERED_TYPES = new Set(['string', 'number', 'integer', 'year', 'date', 'time', 'datetime', 'yearmonth', 'duration']);

function isOrdered(field: FieldDescriptor): boolean {
  return ORDERED_TYPES.has(field.type) && !(field.type === 'string' && field.format === 'uuid');
}

function orderlessKind(field: FieldDescriptor): string {
  return field.type === 'string' ? 'a uuid string' : `of type ${field.type}`;
}

export type QueryEntries = Iterable<[string, string]>;

function integerParameter(name: string, raw: string, minimum: number): number {
  if (!/^\d{1,9}$/.test(raw.trim())) throw queryError(name, 'expects a whole number');
  const value = Number(raw.trim());
  if (value < minimum) throw queryError(name, `must be at least ${minimum}`);
  return value;
}

function flag(name: string, raw: string): boolean {
  const value = raw.toLowerCase();
  if (value === 'true' || value === '1' || value === '') return true;
  if (value === 'false' || value === '0') return false;
  throw queryError(name, 'expects true or false');
}

function fieldNamed(table: TableDescriptor, parameter: string, name: string): FieldDescriptor {
  if (name.includes('.')) throw queryError(parameter, `related fields ("${name}") are not supported yet`);
  const field = table.fields.find((candidate) => candidate.name === name);
  if (!field) throw queryError(parameter, `unknown field "${name}"`);
  return field;
}

function commaList(parameter: string, raw: string): string[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) throw queryError(parameter, 'expects a comma-separated list without empty items');
  return items;
}

/** A field of `_group_by` or `_aggregate`: the table's own, or a related one through the extensions. */
function valueNamed(table: TableDescriptor, parameter: string, name: string, extensions?: QueryExtensions): GroupTerm {
  if (name.includes('.') && extensions !== undefined) return { name, ...extensions.relatedValue(parameter, name) };
  return { name, field: fieldNamed(table, parameter, name) };
}

function parseAggregates(table: TableDescriptor, raw: string, extensions?: QueryExtensions): Aggregate[] {
  return commaList('_aggregate', raw).map((item) => {
    const match = AGGREGATE.exec(item);
    if (!match)
      throw queryError(
        '_aggregate',
        `unknown aggregate "${item}"; use count(*), count(f), count_distinct(f), sum(f), avg(f), min(f) or max(f)`,
      );
    const fn = match[1] as AggregateFunction;
    if (match[2] === '*') {
      if (fn !== 'count') throw queryError('_aggregate', `${fn}(*) is not an aggregate; only count(*) takes "*"`);
      return { fn, alias: 'count' };
    }
    const { name, field, expression, joined } = valueNamed(table, '_aggregate', match[2]!, extensions);
    if ((fn === 'sum' || fn === 'avg') && !NUMERIC_TYPES.has(field.type)) {
      throw queryError('_aggregate', `${fn}(${field.name}) needs a number or integer field`);
    }
    if ((fn === 'min' || fn === 'max') && !isOrdered(field)) {
      throw queryError(
        '_aggregate',
        `${fn}(${field.name}) needs a field with an order (text, number, date or time); "${field.name}" is ${orderlessKind(field)}`,
      );
    }
    return {
      fn,
      field,
      alias: `${fn}_${name}`,
      ...(expression === undefined ? {} : { expression }),
      ...(joined === undefined ? {} : { joined }),
    };
  });
}

/** Parses `_sort`/`ordering`; in an aggregation the names are group fields or aggregate aliases. */
function parseSort(table: TableDescriptor, parameter: string, raw: string, plan: ListPlan, extensions?: QueryExtensions): SortTerm[] {
  return commaList(parameter, raw).map((item) => {
    const descending = item.startsWith('-');
    const name = descending ? item.slice(1) : item;
    if (plan.aggregates) {
      const group = plan.groupBy?.find((term) => term.name === name);
      if (group === undefined && !plan.aggregates.some((aggregate) => aggregate.alias === name))
        throw queryError(parameter, `"${name}" is neither a group field nor an aggregate of this query`);
      if (group === undefined) return { name, descending };
      return {
        name,
        field: group.field,
        descending,
        ...(group.expression === undefined ? {} : { expression: group.expression }),
        ...(group.joined === undefined ? {} : { joined: group.joined }),
      };
    }
    if (name.includes('.') && extensions !== undefined) return extensions.relatedSort(parameter, name, descending);
    return { name, field: fieldNamed(table, parameter, name), descending };
  });
}

/** Collects the parameters, refusing one given twice (its meaning would be ambiguous). */
function singleValued(entries: QueryEntries): Map<string, string> {
  const values = new Map<string, string>();
  for (const [key, value] of entries) {
    if (values.has(key)) throw queryError(key, 'is given more than once');
    values.set(key, value);
  }
  return values;
}

/** Parses filter parameters only (the DELETE `filter` object uses the same language). */
export function parseFilters(table: TableDescriptor, entries: QueryEntries, extensions?: QueryExtensions): FilterCondition[] {
  const filters: FilterCondition[] = [];
  for (const [key, raw] of singleValued(entries)) {
    if (key.includes('.') && extensions !== undefined) {
      filters.push(extensions.relatedFilter(key, raw));
      continue;
    }
    const filter = parseFilterKey(table, key);
    if (!filter) throw queryError(key, 'unknown query parameter');
    filters.push({ ...filter, raw });
  }
  return filters;
}

export function parseListQuery(table: TableDescriptor, entries: QueryEntries, extensions?: QueryExtensions): ListPlan {
  const values = singleValued(entries);
  const filterEntries: [string, string][] = [];
  for (const [key, raw] of values) {
    if (extensions?.claims(key, raw) === true) {
      values.delete(key);
      continue;
    }
    if (NOT_YET.has(key)) throw queryError(key, `"${key}" is not supported yet`);
    if (!CONTROL.has(key)) filterEntries.push([key, raw]);
  }
  const plan: ListPlan = {
    filters: parseFilters(table, filterEntries, extensions),
    sort: [],
    page: 1,
    pageSize: DEFAULT_PAGE_SIZE,
    offset: 0,
    pagedBy: 'page',
    deleted: 'exclude',
    count: countMode(values.get('_count')),
  };
  readPagination(values, plan);
  const search = values.get('search');
  if (search !== undefined) {
    if (!table.search) throw queryError('search', 'this table has no search_vector field, so it cannot be searched');
    if (search.trim() === '') throw queryError('search', 'expects search terms');
    plan.search = search;
  }
  const includeDeleted = values.has('include_deleted') && flag('include_deleted', values.get('include_deleted')!);
  const onlyDeleted = values.has('only_deleted') && flag('only_deleted', values.get('only_deleted')!);
  plan.deleted = onlyDeleted ? 'only' : includeDeleted ? 'include' : 'exclude';
  if (values.has('_aggregate')) plan.aggregates = parseAggregates(table, values.get('_aggregate')!, extensions);
  if (values.has('_group_by')) {
    if (!plan.aggregates) throw queryError('_group_by', 'needs _aggregate');
    plan.groupBy = commaList('_group_by', values.get('_group_by')!).map((name) => valueNamed(table, '_group_by', name, extensions));
  }
  if (values.has('_sort') && values.has('ordering')) throw queryError('ordering', 'give either _sort or ordering, not both');
  const sortParameter = values.has('_sort') ? '_sort' : values.has('ordering') ? 'ordering' : undefined;
  if (sortParameter) plan.sort = parseSort(table, sortParameter, values.get(sortParameter)!, plan, extensions);
  return plan;
}

/** `_count` as given, or a 400 naming it (the modes and their parsing are every paged list's). */
function countMode(raw: string | undefined): CountMode {
  const mode = countModeOf(raw);
  if (mode === undefined) throw queryError('_count', COUNT_MODE_PROBLEM);
  return mode;
}

function readPagination(values: Map<string, string>, plan: ListPlan): void {
  const usesPages = values.has('page') || values.has('page_size');
  const usesOffset = values.has('limit') || values.has('offset');
  if (usesPages && usesOffset) throw queryError(values.has('limit') ? 'limit' : 'offset', 'cannot be combined with page/page_size');
  if (usesOffset) {
    const limit = values.has('limit') ? integerParameter('limit', values.get('limit')!, 1) : DEFAULT_PAGE_SIZE;
    if (limit > MAX_PAGE_SIZE) throw queryError('limit', `must be at most ${MAX_PAGE_SIZE}`);
    plan.pageSize = limit;
    plan.pagedBy = 'offset';
    plan.offset = values.has('offset') ? integerParameter('offset', values.get('offset')!, 0) : 0;
    plan.page = Math.floor(plan.offset / limit) + 1;
    return;
  }
  plan.page = values.has('page') ? integerParameter('page', values.get('page')!, 1) : 1;
  plan.pageSize = values.has('page_size') ? integerParameter('page_size', values.get('page_size')!, 1) : DEFAULT_PAGE_SIZE;
  if (plan.pageSize > MAX_PAGE_SIZE) throw queryError('page_size', `must be at most ${MAX_PAGE_SIZE}`);
  plan.offset = (plan.page - 1) * plan.pageSize;
}
