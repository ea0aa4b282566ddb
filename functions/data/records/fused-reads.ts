// Record reads in one round trip. The first read of a table through a host takes the ordinary way
// (caller and site, then the table, then the query) and remembers the schema, the table row and the
// compiled descriptor it found. Later reads send one statement: caller and site (with the access
// checks run on them as always), a guard that the table row is still the remembered one (same id
// and schema hash, materialized, app not deleted), and the query. A stale or failing guess costs one
// more round trip and never a wrong answer: guard and query read one snapshot, the site must be the
// one the guess was made for, and nothing is returned before the caller's checks have passed.
import type { SQL } from 'drizzle-orm';
import type { Row } from '#shared/db/database.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { ContextRead } from '#shared/tenancy/tenant-context.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import { loadTableDescriptor } from '../tables/table-lookup.ts';
import type { DatatableRow } from '../tables/table-repository.ts';
import { guardedReadByKeySql, guardedReadSql, type RememberedTableRow } from './fused-read-sql.ts';
import { detailSql } from './record-sql.ts';
import { keyText } from './record-service.ts';
import { assertReachesReferenceSource } from '../relations/reference-service.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

export interface TableAddress {
  app_slug: string;
  name: string;
}

interface TableHint {
  schemaName: string;
  tableId: number;
  schemaHash: string;
  descriptor: TableDescriptor;
}

/** Bounded: a process serving many hosts and tables starts over rather than grow without limit. */
const HINT_LIMIT = 2_000;
const hints = new BoundedMap<string, TableHint>(HINT_LIMIT);

/** Where a guess about a table is remembered: the host (and tenant header) it was made through and the address. */
export function hintKey(ctx: RequestContext, address: TableAddress): string {
  return [ctx.request.host, ctx.request.headers['x-tenant'] ?? '', address.app_slug, address.name].join('\n');
}

/** Called after a read found the table the ordinary way. */
export function rememberTable(ctx: RequestContext, address: TableAddress, table: DatatableRow, descriptor: TableDescriptor): void {
  hints.set(hintKey(ctx, address), { schemaName: ctx.site.schemaName, tableId: table.id, schemaHash: table.schema_hash, descriptor });
}

/** The ordinary way to a table for a read: found through the caller's site, then remembered. */
export async function readableTable(ctx: RequestContext, address: TableAddress): Promise<TableDescriptor> {
  const { table, descriptor } = await loadTableDescriptor(ctx.runtime.db, ctx.site, address.app_slug, address.name);
  // A reference: its source app is asked on every read, so it is never remembered for the fused way.
  if (table.app_slug !== address.app_slug) {
    await assertReachesReferenceSource(ctx.runtime.db, ctx.site, ctx.user, table.app_slug, 'read');
    return descriptor;
  }
  rememberTable(ctx, address, table, descriptor);
  return descriptor;
}

/** A read to fuse: the statement and the names of its columns. */
export interface RowsStatement {
  statement: SQL;
  columns: readonly string[];
}

/**
 * A read that makes the whole answer as JSON text in the database, or '' when it cannot (the caller
 * then reads the ordinary way); its rows are never parsed here only to be serialized again.
 */
export interface AnswerStatement {
  answer: SQL;
}

export type FusedRead = RowsStatement | AnswerStatement;

/** Rows back from the column-wise arrays of `guardedReadSql` (no rows: every array is null). */
function rowsOf(columns: readonly string[], text: string): Row[] {
  const values = JSON.parse(text) as Array<unknown[] | null>;
  const count = values[0]?.length ?? 0;
  const rows: Row[] = [];
  for (let index = 0; index < count; index += 1) {
    const row: Row = {};
    columns.forEach((column, at) => {
      row[column] = values[at]![index];
    });
    rows.push(row);
  }
  return rows;
}

/** What a fused read found: the statement's rows, or the answer's text (undefined when it had none). */
export type FusedResult =
  | { descriptor: TableDescriptor; rows: Row[] }
  | { descriptor: TableDescriptor; rows?: undefined; answer: string | undefined };

/**
 * Establishes the request's context and runs the read `compile` makes from the remembered table in
 * the same round trip: the read and the text its statement answered, or undefined when there was no
 * usable guess (the caller then reads the ordinary way; the context is established either way).
 * `compile` may throw on bad input; that too is left to the ordinary way, so a caller without access
 * learns nothing from a query's errors.
 */
async function readUnderHint<T>(
  ctx: RequestContext,
  address: TableAddress,
  compile: (hint: TableHint, row: RememberedTableRow) => { read: T; statement: ContextRead },
): Promise<{ hint: TableHint; read: T; text: string } | undefined> {
  const key = hintKey(ctx, address);
  const hint = hints.get(key);
  let compiled: { read: T; statement: ContextRead } | undefined;
  try {
    compiled = hint === undefined ? undefined : compile(hint, { ...hint, appSlug: address.app_slug, name: address.name });
  } catch {
    compiled = undefined;
  }
  if (hint === undefined || compiled === undefined) {
    await ctx.establish();
    return undefined;
  }
  const fused = await ctx.establish(compiled.statement);
  if (typeof fused !== 'string' || ctx.site.schemaName !== hint.schemaName) {
    hints.delete(key);
    return undefined;
  }
  return { hint, read: compiled.read, text: fused };
}

/** A read (built by `compile` from the remembered descriptor) with the caller's context: `readUnderHint`. */
export async function readWithRememberedTable(
  ctx: RequestContext,
  address: TableAddress,
  compile: (descriptor: TableDescriptor) => FusedRead,
): Promise<FusedResult | undefined> {
  const found = await readUnderHint(ctx, address, (hint, row) => {
    const read = compile(hint.descriptor);
    return { read, statement: { statement: guardedReadSql(row, read) } };
  });
  if (found === undefined) return undefined;
  const { hint, read, text } = found;
  if ('answer' in read) return { descriptor: hint.descriptor, answer: text === '' ? undefined : text };
  return { descriptor: hint.descriptor, rows: rowsOf(read.columns, text) };
}

/** The one column of a record's detail statement (record-sql.ts's `detailSql`). */
const DETAIL_COLUMNS = ['record'];

/**
 * One record by its key with the caller's context (`readUnderHint`): its statement made once per
 * remembered table and filled in with each key (fused-read-sql.ts's `guardedReadByKeySql`).
 */
export async function readRecordWithRememberedTable(
  ctx: RequestContext,
  address: TableAddress,
  id: string,
): Promise<{ descriptor: TableDescriptor; rows: Row[] } | undefined> {
  const found = await readUnderHint(ctx, address, (hint, row) => {
    const detail = (key: string) => ({ statement: detailSql(hint.descriptor, key), columns: DETAIL_COLUMNS });
    const statement = guardedReadByKeySql(hint, row, 'detail', keyText(hint.descriptor, id), detail);
    return { read: undefined, statement: { statement, byKey: true } };
  });
  return found === undefined ? undefined : { descriptor: found.hint.descriptor, rows: rowsOf(DETAIL_COLUMNS, found.text) };
}
