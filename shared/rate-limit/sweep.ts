// Deletes rate-limit counters whose window has ended. Such a row would start over at its caller's
// next request anyway (the upsert resets an ended window), so deleting it loses nothing; without
// the sweep every address and user ever seen would keep a row. Each process sweeps opportunistically
// at most once per `sweepIntervalSeconds` on the request that finds it due, so no schedule is needed
// locally or deployed and no request but that one pays the extra statement.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';

/** The longest window (an hour): a row that began before now minus this has ended, whatever its limit. */
const LONGEST_WINDOW_SECONDS = 3600;
/** At most this many rows per sweep, so one request never carries a long delete. */
const SWEEP_BATCH = 5000;

/** Deletes up to SWEEP_BATCH ended counters; answers how many went. */
export function sweepEndedCounters(db: Queryable, nowSeconds: number): Promise<number> {
  return db.run(sql`delete from platform.rate_limit_counters where key in (
    select key from platform.rate_limit_counters where window_start < ${nowSeconds - LONGEST_WINDOW_SECONDS}::int limit ${SWEEP_BATCH}
  )`);
}

/** When each database (one per process, more in tests) was last swept, in epoch seconds. */
const lastSweep = new WeakMap<object, number>();

/** Sweeps when this process has not swept for `intervalSeconds`; a failed sweep is retried next interval. */
export async function sweepWhenDue(db: Queryable, intervalSeconds: number, nowSeconds: number): Promise<number> {
  if (nowSeconds - (lastSweep.get(db) ?? -Infinity) < intervalSeconds) return 0;
  lastSweep.set(db, nowSeconds);
  return sweepEndedCounters(db, nowSeconds);
}
