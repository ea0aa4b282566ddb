// The counters' one statement: an upsert that adds to each of a request's counters the hits it
// reserves (one, or a block for a busy caller: leases.ts), starting a counter's window over when the
// last one has ended (a fixed window), and returns the counts. It runs on its own, or as a WITH
// clause of the statement that already reads the caller, so a signed-in request pays no extra round
// trip for its limit; a request served from a reserved block sends none.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { RateLimitError } from '#shared/errors.ts';
import type { Counter } from './limits.ts';
import type { CountRow, Reservation } from './leases.ts';

/** A counter after this request's hit. */
export interface CountedLimit {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window ends and the count starts over. */
  reset: number;
  exceeded: boolean;
}

/** The outcome of one request's counting: the headers it sends, and the 429 when a limit was passed. */
export interface RateLimitOutcome {
  /** The tightest limit (fewest requests left), which the X-RateLimit-* headers describe. */
  shown: CountedLimit;
  /** Seconds until every passed limit has started over; undefined when none was passed. */
  retryAfter?: number;
}

function upsertSql(reservations: readonly Reservation[]): SQL {
  const rows = reservations.map(
    ({ counter, hits }) =>
      sql`(${counter.key}, (floor(extract(epoch from now()) / ${counter.windowSeconds}::int) * ${counter.windowSeconds}::int)::int, ${hits}::int)`,
  );
  return sql`insert into platform.rate_limit_counters as c (key, window_start, hits)
    values ${sql.join(rows, sql`, `)}
    on conflict (key) do update set
      hits = case when c.window_start = excluded.window_start then c.hits + excluded.hits else excluded.hits end,
      window_start = excluded.window_start
    returning c.key, c.window_start, c.hits`;
}

/** A statement that reads something else may count too: it takes this WITH clause and column. */
export interface CountingSql {
  withClause: SQL;
  /** A JSON array of `[key, window_start, hits]`, named `rate_limit`. */
  column: SQL;
}

export function countingSql(reservations: readonly Reservation[]): CountingSql {
  return {
    withClause: sql`with rate_limit as (${upsertSql(reservations)})`,
    column: sql`(select json_agg(json_build_array(key, window_start, hits)) from rate_limit) as rate_limit`,
  };
}

/** The `rate_limit` column of a statement that counted: its rows (JSON text on PGlite). */
export function countRowsOf(returned: unknown): CountRow[] {
  return ((typeof returned === 'string' ? JSON.parse(returned) : returned) as CountRow[] | null) ?? [];
}

/** Judges a request's counts (each counter's row, the request's own number in `hits`) against the limits. */
export function outcomeOf(counters: readonly Counter[], rows: readonly CountRow[], nowSeconds: number): RateLimitOutcome {
  const byKey = new Map(rows.map((row) => [row[0], row]));
  const limits = counters.map((counter): CountedLimit => {
    const row = byKey.get(counter.key);
    const hits = Number(row?.[2] ?? 1);
    const windowStart = Number(row?.[1] ?? nowSeconds);
    return {
      limit: counter.limit,
      remaining: Math.max(0, counter.limit - hits),
      reset: windowStart + counter.windowSeconds,
      exceeded: hits > counter.limit,
    };
  });
  const passed = limits.filter((limit) => limit.exceeded);
  const candidates = passed.length > 0 ? passed : limits;
  const shown = candidates.reduce((tightest, limit) =>
    limit.remaining < tightest.remaining || (limit.remaining === tightest.remaining && limit.reset > tightest.reset) ? limit : tightest,
  );
  if (passed.length === 0) return { shown };
  const lastReset = Math.max(...passed.map((limit) => limit.reset));
  return { shown, retryAfter: Math.max(1, lastReset - nowSeconds) };
}

/** Counts a request on its own statement (callers no statement reads, anonymous ones). */
export async function countRequest(db: Queryable, reservations: readonly Reservation[]): Promise<CountRow[]> {
  if (reservations.length === 0) return [];
  const rows = await db.rows<{ key: string; window_start: number; hits: number }>(upsertSql(reservations));
  return rows.map((row) => [row.key, row.window_start, row.hits]);
}

export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(outcome.shown.limit),
    'X-RateLimit-Remaining': String(outcome.shown.remaining),
    'X-RateLimit-Reset': String(outcome.shown.reset),
  };
}

export function rateLimitError(outcome: RateLimitOutcome): RateLimitError | undefined {
  if (outcome.retryAfter === undefined) return undefined;
  return new RateLimitError(outcome.retryAfter, {
    headers: rateLimitHeaders(outcome),
    extras: { error: 'Too many requests', detail: `Request limit reached; try again in ${outcome.retryAfter} seconds.` },
  });
}

/**
 * Counting fused into the statement that reads a signed-in caller: the caller's UUID (the token's
 * subject) is known only once the token is verified, so the SQL is asked for then (undefined when
 * reserved counts cover the request); `settle` gets the statement's `rate_limit` column.
 */
export interface CallerCounting {
  sqlFor(subject: string): CountingSql | undefined;
  settle(returned: unknown): void;
}
