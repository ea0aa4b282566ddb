// Counting in reserved blocks (shared/rate-limit/leases.ts), with the database's upsert played by a
// map: the numbers handed out are the ones single counts would have given, blocks grow only for a
// caller whose requests come fast and stay a small share of the limit, and nothing is lost when
// requests reserve at the same time.
import { describe, expect, it } from 'vitest';
import { planCount, type CountRow } from '#shared/rate-limit/leases.ts';
import type { Counter } from '#shared/rate-limit/limits.ts';

/** The database's side: adds each reservation to its counter and answers the totals. */
function fakeCounters() {
  const totals = new Map<string, number>();
  return {
    totals,
    apply(reservations: ReadonlyArray<{ counter: Counter; hits: number }>, windowStart: number): CountRow[] {
      return reservations.map(({ counter, hits }) => {
        const total = (totals.get(counter.key) ?? 0) + hits;
        totals.set(counter.key, total);
        return [counter.key, windowStart, total];
      });
    },
  };
}

const HOUR = 3600;
const T0 = 1_800_000_000_000; // a whole hour, in milliseconds
const counter = (limit: number, key = 'general:u:someone'): Counter => ({ key, limit, windowSeconds: HOUR });

/** One request at `nowMs`: its own number and the size of what it reserved (0 when served from a block). */
function count(database: object, fake: ReturnType<typeof fakeCounters>, limitCounter: Counter, nowMs: number) {
  const plan = planCount(database, [limitCounter], nowMs);
  const returned = fake.apply(plan.reservations, T0 / 1000);
  const [row] = plan.settle(returned);
  return { number: row![2], reserved: plan.reservations[0]?.hits ?? 0 };
}

describe('counting in reserved blocks', () => {
  it('numbers fast requests exactly while writing in growing blocks, capped at a 200th of the limit', () => {
    const database = {};
    const fake = fakeCounters();
    const limited = counter(2_000); // blocks of at most 10
    const seen = Array.from({ length: 60 }, (_, index) => count(database, fake, limited, T0 + index));
    expect(seen.map((entry) => entry.number)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    const blocks = seen.map((entry) => entry.reserved).filter((size) => size > 0);
    expect(blocks.slice(0, 5)).toEqual([1, 2, 4, 8, 10]);
    expect(Math.max(...blocks)).toBe(10);
    expect(blocks.length).toBeLessThan(12);
    // The database holds what was used and at most the rest of the last block.
    expect(fake.totals.get(limited.key)! - 60).toBeLessThan(10);
  });

  it('counts singly under a limit too small for blocks, and after a pause', () => {
    const database = {};
    const fake = fakeCounters();
    const small = counter(100);
    const reserved = Array.from({ length: 5 }, (_, index) => count(database, fake, small, T0 + index).reserved);
    expect(reserved).toEqual([1, 1, 1, 1, 1]);
    const busy = counter(100_000, 'general:u:busy');
    for (let index = 0; index < 20; index += 1) count(database, fake, busy, T0 + index);
    // Twenty seconds later the caller starts over with a single count (the block's rest is used first).
    let after = count(database, fake, busy, T0 + 20_000);
    while (after.reserved === 0) after = count(database, fake, busy, T0 + 20_000);
    expect(after.reserved).toBe(1);
  });

  it('keeps every block when requests reserve at the same time', () => {
    const database = {};
    const fake = fakeCounters();
    const limited = counter(100_000);
    count(database, fake, limited, T0);
    count(database, fake, limited, T0 + 1); // reserves 2: number 2, keeps 3
    count(database, fake, limited, T0 + 2); // 3 from the block
    // Two requests find no block and reserve before either answer is back.
    const first = planCount(database, [limited], T0 + 3);
    const second = planCount(database, [limited], T0 + 3);
    const firstRows = first.settle(fake.apply(first.reservations, T0 / 1000));
    const secondRows = second.settle(fake.apply(second.reservations, T0 / 1000));
    const later = Array.from({ length: 6 }, (_, index) => count(database, fake, limited, T0 + 4 + index).number);
    const numbers = [firstRows[0]![2], secondRows[0]![2], ...later];
    // No number twice, none skipped up to what the database holds.
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(Math.max(...numbers)).toBeLessThanOrEqual(fake.totals.get(limited.key)!);
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, index) => index + 4));
  });

  it('drops a block when its window ends, and keeps databases apart', () => {
    const fake = fakeCounters();
    const limited = counter(100_000);
    const database = {};
    for (let index = 0; index < 10; index += 1) count(database, fake, limited, T0 + index);
    const nextHour = count(database, fake, limited, T0 + HOUR * 1000);
    expect(nextHour.reserved).toBeGreaterThan(0);
    const other = count({}, fake, limited, T0 + 11);
    expect(other.reserved).toBe(1);
  });
});
