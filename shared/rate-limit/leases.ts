// Counting a busy caller a few requests at a time. A request that finds no counts reserved for its
// counter adds to the counter in the database as before; a caller whose requests come fast reserves
// several counts in that one write (the counter grows by the block), and this process hands them to
// the caller's next requests without a statement, each with its exact number in the block. So the
// counts a process reports are the ones the database would have reported for one process, and a
// request past the limit is refused exactly as before. With several processes, counts reserved by
// one and not yet used are already counted for the others: a caller can be refused early by at most
// one block per process, never late. Blocks are small against the limit (at most 1/200 of it), so
// the default limits (DECISIONS) count every request singly; they only grow for limits set high
// enough for a caller to send hundreds of requests a second.
import type { Counter } from './limits.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

/** `[key, window_start, hits]`: a counter as a request saw it, hits being the request's own number. */
export type CountRow = [string, number, number];

/** The largest block, and the share of a limit a block may take. */
const MAX_BLOCK = 64;
const LIMIT_SHARE = 200;
/** A block used up this soon after it was reserved makes the next one twice as large. */
const FAST_REFILL_MS = 1_000;
/** After this long without a refill the caller starts over with single counts. */
const IDLE_RESET_MS = 10_000;
/** Bounded: a process serving many callers starts over rather than grow without limit. */
const LEASE_LIMIT = 10_000;

interface Lease {
  windowStart: number;
  windowEnd: number;
  /** Reserved numbers not yet handed out, `[next, last]` each (requests reserving at once each add one). */
  ranges: Array<[number, number]>;
  /** The size of the last block, and when it was reserved. */
  blockSize: number;
  reservedAtMs: number;
}

/** A counter to add to in the database and by how much. */
export interface Reservation {
  counter: Counter;
  hits: number;
}

/** How one request is counted: reservations for the database (none when all were served here), then `settle`. */
export interface CountPlan {
  reservations: Reservation[];
  /** Every counter's row for this request, from the database's answer for the reserved ones. */
  settle(returned: readonly CountRow[]): CountRow[];
}

/** One table of leases per database, so test apps sharing a process do not share counts. */
const leasesByDatabase = new WeakMap<object, BoundedMap<string, Lease>>();

function leasesOf(database: object): BoundedMap<string, Lease> {
  let leases = leasesByDatabase.get(database);
  if (leases === undefined) {
    leases = new BoundedMap(LEASE_LIMIT);
    leasesByDatabase.set(database, leases);
  }
  return leases;
}

function largestBlock(counter: Counter): number {
  return Math.max(1, Math.min(MAX_BLOCK, Math.floor(counter.limit / LIMIT_SHARE)));
}

/** The next block's size: doubled when the last one went fast, back to one after a pause. */
function nextBlockSize(counter: Counter, lease: Lease | undefined, nowMs: number): number {
  if (lease === undefined) return 1;
  const sinceReserved = nowMs - lease.reservedAtMs;
  if (sinceReserved > IDLE_RESET_MS) return 1;
  const size = sinceReserved < FAST_REFILL_MS ? lease.blockSize * 2 : lease.blockSize;
  return Math.min(size, largestBlock(counter));
}

/** The next reserved number of a lease still in its window, taken; undefined when it has none. */
function takeReserved(lease: Lease | undefined, nowSeconds: number): number | undefined {
  if (lease === undefined || nowSeconds >= lease.windowEnd) return undefined;
  const range = lease.ranges[0];
  if (range === undefined) return undefined;
  const number = range[0];
  if (range[0] === range[1]) lease.ranges.shift();
  else range[0] += 1;
  return number;
}

/** Keeps what a reservation left over for the next requests; a new window's block replaces the old window's. */
function keepReserved(
  leases: Map<string, Lease>,
  counter: Counter,
  windowStart: number,
  range: [number, number],
  hits: number,
  nowMs: number,
): void {
  const lease = leases.get(counter.key);
  const ranges = range[0] <= range[1] ? [range] : [];
  if (lease !== undefined && lease.windowStart === windowStart) {
    lease.ranges.push(...ranges);
    lease.blockSize = hits;
    lease.reservedAtMs = nowMs;
    return;
  }
  leases.set(counter.key, { windowStart, windowEnd: windowStart + counter.windowSeconds, ranges, blockSize: hits, reservedAtMs: nowMs });
}

export function planCount(database: object, counters: readonly Counter[], nowMs: number): CountPlan {
  const leases = leasesOf(database);
  const nowSeconds = Math.floor(nowMs / 1000);
  const local = new Map<string, CountRow>();
  const reservations: Reservation[] = [];
  for (const counter of counters) {
    const lease = leases.get(counter.key);
    const reserved = takeReserved(lease, nowSeconds);
    if (reserved !== undefined) local.set(counter.key, [counter.key, lease!.windowStart, reserved]);
    else reservations.push({ counter, hits: nextBlockSize(counter, lease, nowMs) });
  }
  return {
    reservations,
    settle(returned) {
      const byKey = new Map(returned.map((row) => [row[0], row]));
      for (const { counter, hits } of reservations) {
        const row = byKey.get(counter.key);
        if (row === undefined) continue;
        const windowStart = Number(row[1]);
        const total = Number(row[2]);
        const first = total - hits + 1;
        local.set(counter.key, [counter.key, windowStart, first]);
        // Kept even when empty: the time of this count decides the size of the next block.
        keepReserved(leases, counter, windowStart, [first + 1, total], hits, nowMs);
      }
      return counters.map((counter) => local.get(counter.key)).filter((row): row is CountRow => row !== undefined);
    },
  };
}
