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

interface TableHint extends RememberedHint {
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

/** What every remembered guess holds: the schema it was made in and the table row it was made from. */
export interface RememberedHint {
  schemaName: string;
  tableId: number;
  schemaHash: string;
  appTables?: string;
}

/**
 * Establishes the request's context and runs the read `compile` makes from the guess `hints` holds
 * for the address, in the same round trip: the guess and the text its statement answered, or
 * undefined when there was no usable guess or it was stale (the caller then reads the ordinary way;
 * the context is established either way). `compile` may throw on bad input; that too is left to the
 * ordinary way, so a caller without access learns nothing from a query's errors.
 */
export async function readUnderHint<H extends RememberedHint>(
  ctx: RequestContext,
  address: TableAddress,
  hints: Map<string, H>,
  compile: (hint: H, row: RememberedTableRow) => ContextRead,
): Promise<{ hint: H; text: string } | undefined> {
  const key = hintKey(ctx, address);
  const hint = hints.get(key);
  let statement: ContextRead | undefined;
  try {
    statement = hint === undefined ? undefined : compile(hint, { ...hint, appSlug: address.app_slug, name: address.name });
  } catch {
    statement = undefined;
  }
  if (hint === undefined || statement === undefined) {
    await ctx.establish();
    return undefined;
  }
  const fused = await ctx.establish(statement);
  if (typeof fused !== 'string' || ctx.site.schemaName !== hint.schemaName) {
    hints.delete(key);
    return undefined;
  }
  return { hint, text: fused };
}

/**
 * A list (its statement made by `compile` from the remembered descriptor, answering the whole text)
 * with the caller's context: `readUnderHint`. The answer is undefined when the statement had none.
 */
export async function readWithRememberedTable(
  ctx: RequestContext,
  address: TableAddress,
  compile: (descriptor: TableDescriptor) => SQL,
): Promise<{ descriptor: TableDescriptor; answer: string | undefined } | undefined> {
  const found = await readUnderHint(ctx, address, hints, (hint, row) => ({
    statement: guardedReadSql(row, { answer: compile(hint.descriptor) }),
  }));
  return found === undefined ? undefined : { descriptor: found.hint.descriptor, answer: found.text === '' ? undefined : found.text };
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
  const found = await readUnderHint(ctx, address, hints, (hint, row) => {
    const detail = (key: string) => ({ statement: detailSql(hint.descriptor, key), columns: DETAIL_COLUMNS });
    return { statement: guardedReadByKeySql(hint, row, 'detail', keyText(hint.descriptor, id), detail), byKey: true };
  });
  return found === undefined ? undefined : { descriptor: found.hint.descriptor, rows: rowsOf(DETAIL_COLUMNS, found.text) };
}
