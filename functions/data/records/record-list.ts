// The record list service, the one path of every list variant (plain, `search=`, `_aggregate`):
// parse the query, run the one list statement (compile.ts `listSql`) fused with the caller's
// context when the table is remembered, and shape the answer as text from the statement's parts:
// `{data, total, page, page_size}` (aggregations `{data, total}`), with `total_is_estimate` for
// `_count=planned` and `next` for `_count=none`.
import { plannedRows, plannedTotal } from '#shared/db/counted-page.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { JsonText } from '#shared/http/reply.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import { readableTable, readWithRememberedTable, type TableAddress } from './fused-reads.ts';
import { listSql, matchesSql } from './query/compile.ts';
import { parseListQuery, type ListPlan, type QueryEntries } from './query/list-query.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';

/** The parts of `listSql`'s text: `<total>,<rows>,<data>`. */
interface ListParts {
  /** Digits, or `null` when the statement did not count. */
  total: string;
  /** Rows read for the page: one more than its size when a further row exists. */
  rows: number;
  /** The page as a JSON array. */
  data: string;
}

function partsOf(text: string): ListParts {
  const first = text.indexOf(',');
  const second = text.indexOf(',', first + 1);
  return { total: text.slice(0, first), rows: Number(text.slice(first + 1, second)), data: text.slice(second + 1) };
}

/** GET on a table's records: the answer as JSON text, the page never parsed and serialized again. */
export async function listTableRecords(ctx: RequestContext, address: TableAddress): Promise<JsonText> {
  const query = [...new URLSearchParams(ctx.request.rawQuery)];
  const links = (plan: ListPlan) => nextPageUrl(ctx, plan);
  let plan: ListPlan | undefined;
  const fused = await readWithRememberedTable(ctx, address, (table) => {
    plan = parseListQuery(table, query);
    return listSql(table, plan);
  });
  if (fused?.answer !== undefined) {
    return new JsonText(await listAnswer(ctx.runtime.db, fused.descriptor, plan!, partsOf(fused.answer), links));
  }
  return new JsonText(await listAnswerOf(ctx.runtime.db, await readableTable(ctx, address), query, links));
}

/** The list answer's text for `query` on `table`, read the ordinary way (one statement). */
export async function listAnswerOf(
  db: Queryable,
  table: TableDescriptor,
  query: QueryEntries,
  nextUrl: (plan: ListPlan) => string,
): Promise<string> {
  return planAnswer(db, table, parseListQuery(table, query), nextUrl);
}

/** The list answer's text for an already parsed plan (relations parse with their own extensions). */
export async function planAnswer(
  db: Queryable,
  table: TableDescriptor,
  plan: ListPlan,
  nextUrl: (plan: ListPlan) => string,
): Promise<string> {
  const [row] = await db.rows<{ answer: string }>(listSql(table, plan));
  return listAnswer(db, table, plan, partsOf(row!.answer), nextUrl);
}

/** The list answer's text from the text `listSql` answered for `plan` (relations run it fused with their own guard). */
export async function listAnswerOfText(
  db: Queryable,
  table: TableDescriptor,
  plan: ListPlan,
  text: string,
  nextUrl: (plan: ListPlan) => string,
): Promise<string> {
  return listAnswer(db, table, plan, partsOf(text), nextUrl);
}

/** The answer as a value, for callers inside the service (and its tests); `next` links are relative. */
export async function listRecords(db: Queryable, table: TableDescriptor, query: QueryEntries): Promise<ListAnswer> {
  const relative = (plan: ListPlan) => (plan.pagedBy === 'offset' ? `?offset=${plan.offset + plan.pageSize}` : `?page=${plan.page + 1}`);
  return parseExactJson(await listAnswerOf(db, table, query, relative)) as ListAnswer;
}

export interface ListAnswer {
  data: Array<Record<string, unknown>>;
  total: number | null;
  page?: number;
  page_size?: number;
  total_is_estimate?: boolean;
  next?: string | null;
}

async function listAnswer(
  db: Queryable,
  table: TableDescriptor,
  plan: ListPlan,
  parts: ListParts,
  nextUrl: (plan: ListPlan) => string,
): Promise<string> {
  const more = parts.rows > plan.pageSize;
  let total = parts.total;
  let estimate = '';
  if (plan.count === 'planned') {
    const planned = await plannedTotal(plan, parts.rows, () => plannedRows(db, matchesSql(table, plan)));
    total = String(planned.total);
    estimate = `,"total_is_estimate":${planned.estimated}`;
  }
  const next = plan.count === 'none' ? `,"next":${more ? JSON.stringify(nextUrl(plan)) : 'null'}` : '';
  const paging = plan.aggregates ? '' : `,"page":${plan.page},"page_size":${plan.pageSize}`;
  return `{"data":${parts.data},"total":${total}${paging}${estimate}${next}}`;
}

/** The URL of the page after `plan`'s, for `next` under `_count=none`. */
export function nextPageUrl(ctx: RequestContext, plan: ListPlan): string {
  if (plan.pagedBy === 'offset') return ctx.urlWithQuery({ offset: String(plan.offset + plan.pageSize) });
  return ctx.urlWithQuery({ page: String(plan.page + 1) });
}
