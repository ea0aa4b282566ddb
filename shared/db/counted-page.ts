// A page of a list and its total under the request's `_count` mode (DECISIONS): `exact` counts the
// matches in a statement of its own, planned apart from the page and sent beside it; `planned` asks
// the planner for its row estimate (EXPLAIN, no row read); `none` counts nothing. Every page reads
// one row more than it shows, so `next` is known in every mode. The record lists (whose exact count
// rides in their one fused statement) share `plannedTotal` and `plannedRows` with the console lists.
import type { SQL, SQLWrapper } from 'drizzle-orm';
import { pageOffset, type PageRequest } from '#shared/http/pagination.ts';
import type { Queryable } from './database.ts';
import { sql } from './sql.ts';

/** A list's total as its `_count` mode gives it. */
export interface ListTotal {
  /** The number of matches; null under `_count=none`. */
  value: number | null;
  /** True when `value` is the planner's estimate rather than a count. */
  estimated: boolean;
  /** Whether a match follows the page (the look-ahead row was there). */
  more: boolean;
}

export interface CountedPage<T> {
  rows: T[];
  total: ListTotal;
}

/** Where a page starts and how many rows it shows. */
export interface PageWindow {
  pageSize: number;
  offset: number;
}

/**
 * A page's OFFSET for a prepared statement: the first page's (0) as a literal, every other as a
 * parameter. With `offset $n` PostgreSQL prices the generic plan as if a tenth of the matches were
 * wanted (an OFFSET it cannot read), so it never prefers it and plans the statement anew on every
 * run: about 0.2 ms of planning beside a list that takes 0.1 ms to read. With the literal, the first
 * page (what most requests ask for) keeps a generic plan once five runs show it no dearer. Deeper
 * pages keep the parameter, planned per run as before: a literal per offset would make a prepared
 * statement per page on every connection.
 */
export function offsetSql(offset: number): SQL {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`page offset ${offset} out of range`);
  return offset === 0 ? sql.raw('0') : sql`${offset}`;
}

/**
 * `limit <n> offset <m>` for a page read by a prepared statement: the limit (a validated page size
 * plus the look-ahead row) as a literal, the offset as `offsetSql` gives it. A parameter in either
 * place makes PostgreSQL price the generic plan as if a tenth of the rows were wanted, so it plans
 * every run anew; page sizes are few, so the literal keeps the texts few.
 */
export function pageWindowSql(limit: number, offset: number): SQL {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`page limit ${limit} out of range`);
  return sql`limit ${sql.raw(String(limit))} offset ${offsetSql(offset)}`;
}

/** The planner's row estimate of a statement's rows, from `EXPLAIN (FORMAT JSON)`: nothing is read. */
export async function plannedRows(db: Queryable, matches: SQL): Promise<number> {
  const [row] = await db.rows<{ 'QUERY PLAN': unknown }>(sql`explain (format json) ${matches}`);
  const explained = row!['QUERY PLAN'];
  // postgres.js parses the json column; PGlite may hand it back as text.
  const [top] = (typeof explained === 'string' ? JSON.parse(explained) : explained) as Array<{ Plan: { 'Plan Rows': number } }>;
  return Math.round(top!.Plan['Plan Rows']);
}

/**
 * `_count=planned` for a page that read `rowsRead` rows (one more than its size when a further match
 * exists): when the page shows where the matches end (it is not full and not past the end) the total
 * is known exactly and no estimate is asked; an estimate is never below what the page has seen.
 */
export async function plannedTotal(
  window: PageWindow,
  rowsRead: number,
  estimate: () => Promise<number>,
): Promise<{ total: number; estimated: boolean }> {
  const seen = window.offset + Math.min(rowsRead, window.pageSize);
  if (rowsRead <= window.pageSize && (rowsRead > 0 || window.offset === 0)) return { total: seen, estimated: false };
  const lower = rowsRead > window.pageSize ? seen + 1 : 0;
  return { total: Math.max(await estimate(), lower), estimated: true };
}

/** What a page reader is given: the rows to read (the page size plus the look-ahead row) and where they start, and the same as SQL. */
export interface PageRead {
  limit: number;
  offset: number;
  /** `limit … offset …` as `pageWindowSql` writes it, for a statement's end. */
  window: SQL;
}

/**
 * One page of `matches` with its total. `readPage` reads the page at `pageOffset(page)` (raw SQL ends
 * with `window`; a query builder takes `limit` and `offset`); `matches` is a select of the same rows
 * (its select list does not matter), which the exact count wraps and the planned count explains.
 */
export async function countedPage<T>(
  db: Queryable,
  page: PageRequest,
  readPage: (read: PageRead) => Promise<T[]>,
  matches: SQL,
): Promise<CountedPage<T>> {
  const window = { pageSize: page.pageSize, offset: pageOffset(page) };
  const count = page.count ?? 'exact';
  const limit = window.pageSize + 1;
  const [read, counted] = await Promise.all([
    readPage({ limit, offset: window.offset, window: pageWindowSql(limit, window.offset) }),
    count === 'exact' ? db.rows<{ total: number }>(sql`select count(*)::int as total from (${matches}) m`) : undefined,
  ]);
  const more = read.length > window.pageSize;
  const rows = more ? read.slice(0, window.pageSize) : read;
  if (counted !== undefined) return { rows, total: { value: Number(counted[0]?.total ?? 0), estimated: false, more } };
  if (count === 'none') return { rows, total: { value: null, estimated: false, more } };
  const planned = await plannedTotal(window, read.length, () => plannedRows(db, matches));
  return { rows, total: { value: planned.total, estimated: planned.estimated, more } };
}

/** `select 1 from <from> [where <where>]`: the matches of a list, for `countedPage`. */
export function matchesOf(from: SQL | SQLWrapper, where: SQL | undefined): SQL {
  return where === undefined ? sql`select 1 from ${from}` : sql`select 1 from ${from} where ${where}`;
}

/** The answer of a list that can match nothing (an unknown filter value): no statement is run. */
export function emptyPage<T>(page: PageRequest): CountedPage<T> {
  return { rows: [], total: { value: page.count === 'none' ? null : 0, estimated: false, more: false } };
}
