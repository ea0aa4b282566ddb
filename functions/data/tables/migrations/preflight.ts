// The live preflight of a plan: for each step that depends on the data, how many rows of the table
// would break it now and up to five of their primary keys. Also the table's size for the estimate.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import type { TableDescriptor } from '../table-descriptor.ts';
import type { PlannedStep, Preflight } from './migration-steps.ts';

export const PREFLIGHT_SAMPLE_SIZE = 5;

export interface PreflightResult {
  violating_rows: number;
  sample_ids: unknown[];
  describes: string;
  blocking: boolean;
}

/** pg_input_is_valid exists from PostgreSQL 16; on 15 the tenant schema's tessera_castable helper stands in. */
const castModes = new WeakMap<Queryable, Promise<boolean>>();

export function hasInputIsValid(db: Queryable): Promise<boolean> {
  let known = castModes.get(db);
  if (known === undefined) {
    known = db.rows<{ v: number }>(sql`select current_setting('server_version_num')::int as v`).then(([row]) => (row?.v ?? 0) >= 160000);
    castModes.set(db, known);
  }
  return known;
}

export async function castableFor(db: Queryable, schemaName: string): Promise<(text: SQL, type: string) => SQL> {
  const modern = await hasInputIsValid(db);
  return (text, type) =>
    modern ? sql`pg_input_is_valid(${text}, '${sql.raw(type)}')` : sql`${ident(schemaName)}.tessera_castable(${text}, '${sql.raw(type)}')`;
}

/** A row's primary key as JSON: the value of a single key, an array of a composite one. */
export function keyExpression(table: TableDescriptor): SQL {
  const keys = table.primaryKey.map((k) => ident(k));
  return keys.length === 1 ? sql`to_jsonb(${keys[0]!})` : sql`jsonb_build_array(${sql.join(keys, sql`, `)})`;
}

/** Counts the rows matching a planner predicate (SQL text built from checked identifiers and rendered literals). */
export async function countViolations(db: Queryable, table: TableDescriptor, preflight: Preflight): Promise<PreflightResult> {
  const qualified = sql`${ident(table.schemaName)}.${ident(table.tableName)}`;
  const where = sql.raw(preflight.predicate);
  const [counted] = await db.rows<{ n: number }>(sql`select count(*)::int as n from ${qualified} where ${where}`);
  const n = counted?.n ?? 0;
  const samples =
    n === 0
      ? []
      : (
          await db.rows<{ id: unknown }>(
            sql`select ${keyExpression(table)} as id from ${qualified} where ${where} limit ${PREFLIGHT_SAMPLE_SIZE}`,
          )
        ).map((r) => (typeof r.id === 'string' && /^[[{"]/.test(r.id) ? JSON.parse(r.id) : r.id));
  return { violating_rows: n, sample_ids: samples, describes: preflight.describes, blocking: preflight.blocking };
}

/** Runs the preflight of every step that has one, keyed by step position. */
export async function runPreflights(
  db: Queryable,
  table: TableDescriptor,
  steps: readonly PlannedStep[],
): Promise<Map<number, PreflightResult>> {
  const results = new Map<number, PreflightResult>();
  for (const [index, step] of steps.entries()) {
    if (step.preflight !== undefined) results.set(index, await countViolations(db, table, step.preflight));
  }
  return results;
}

/**
 * The planner's row estimate (no scan): pg_class.reltuples; for a table never analyzed (-1), its
 * size on disk at an assumed 64 bytes a row.
 */
export async function estimatedRows(db: Queryable, table: TableDescriptor): Promise<number> {
  const [row] = await db.rows<{
    n: number;
  }>(sql`select (case when c.reltuples >= 0 then c.reltuples else pg_relation_size(c.oid) / 64 end)::bigint::int as n
    from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = ${table.schemaName} and c.relname = ${table.tableName}`);
  return row?.n ?? 0;
}

/** Milliseconds from the row count: catalog-only steps are constant, the others scale with rows. */
export function estimateDuration(steps: readonly PlannedStep[], rows: number): number {
  const perRow: Record<PlannedStep['class'], number> = {
    instant: 0,
    online: 0.0005,
    'data-dependent': 0.002,
    breaking: 0.002,
    destructive: 0,
  };
  return Math.round(steps.reduce((total, step) => total + 2 + rows * perRow[step.class], 0));
}
