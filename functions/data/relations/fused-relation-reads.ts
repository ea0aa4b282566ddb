// Reads that involve relations in one round trip, as fused-reads.ts does for a single table: the
// first read through a host finds the app's tables the ordinary way and remembers the relations
// compiled from them; later reads send one statement with the caller's context, a guard that the
// table row and every table row of the app are still the remembered ones (a changed, added or dropped
// table anywhere in the app may change what a relation name means), and the read. A stale guess
// costs one more round trip, never a wrong answer, and a query's errors are left to the ordinary way.
import type { SQL } from 'drizzle-orm';
import type { RequestContext } from '#shared/http/request-context.ts';
import { hintKey, readUnderHint, type RememberedHint, type TableAddress } from '../records/fused-reads.ts';
import { guardedReadByKeySql, guardedReadSql, type RememberedTableRow } from '../records/fused-read-sql.ts';
import type { ContextRead } from '#shared/tenancy/tenant-context.ts';
import type { AppRelations, RelationTable } from './relation-graph.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

export interface FoundRelations {
  relations: AppRelations;
  base: RelationTable;
  /** The base table's own row and the app's tables' fingerprint; absent for a reference (not remembered). */
  own?: { tableId: number; schemaHash: string; appTables: string };
  /** For a reference: the slug of its source's app, which the caller must be able to read. */
  sourceApp?: string;
}

interface RelationsHint extends RememberedHint {
  appTables: string;
  found: FoundRelations;
}

/** Bounded as fused-reads.ts's hints are. */
const HINT_LIMIT = 2_000;
const hints = new BoundedMap<string, RelationsHint>(HINT_LIMIT);

/** Called after a read found the relations the ordinary way; a reference's are not remembered. */
export function rememberRelations(ctx: RequestContext, address: TableAddress, found: FoundRelations): void {
  if (found.own === undefined) return;
  hints.set(hintKey(ctx, address), { schemaName: ctx.site.schemaName, ...found.own, found });
}

/**
 * A read to fuse, a statement answering JSON text: a list's, or one record's by its key (`key` as
 * bound), whose statement is made once per `shape` and filled in with each key (fused-read-sql.ts's
 * `guardedReadByKeySql`).
 */
export type RelationalRead = { answer: SQL } | { byKey: { key: string; shape: string; answer: (key: string) => SQL } };

function guardedStatement(hint: RelationsHint, row: RememberedTableRow, read: RelationalRead): ContextRead {
  if ('answer' in read) return { statement: guardedReadSql(row, read) };
  const { key, shape, answer } = read.byKey;
  return { statement: guardedReadByKeySql(hint, row, shape, key, (value) => ({ answer: answer(value) })), byKey: true };
}

/**
 * A read `compile` builds from the remembered relations, with the caller's context: fused-reads.ts's
 * `readUnderHint`. Undefined when there was no usable guess or it was stale: the caller then reads
 * the ordinary way.
 */
export async function readWithRememberedRelations(
  ctx: RequestContext,
  address: TableAddress,
  compile: (found: FoundRelations) => RelationalRead,
): Promise<{ found: FoundRelations; answer: string } | undefined> {
  const read = await readUnderHint(ctx, address, hints, (hint, row) => guardedStatement(hint, row, compile(hint.found)));
  // Every relational statement answers text; none ('') is a guess gone wrong as well.
  return read === undefined || read.text === '' ? undefined : { found: read.hint.found, answer: read.text };
}
