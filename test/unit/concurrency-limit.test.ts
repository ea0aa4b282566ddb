// shared/concurrency-limit.ts (the dev server's admission, password hashing): at most `limit` pieces
// of work at once, the rest start in arrival order, and work that fails gives its place back.
import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '#shared/concurrency-limit.ts';

describe('a concurrency limit', () => {
  it('works on at most the limit at once and starts the waiting in arrival order', async () => {
    const places = concurrencyLimit(3);
    let running = 0;
    let mostRunning = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const tasks = Array.from({ length: 10 }, (_, index) =>
      places.run(async () => {
        started.push(index);
        running += 1;
        mostRunning = Math.max(mostRunning, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return index;
      }),
    );
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    await tick();
    expect(started).toEqual([0, 1, 2]);
    // Finish the running ones one at a time: each finish lets the next in line start.
    while (releases.length > 0) {
      releases.shift()!();
      await tick();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(mostRunning).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('gives the place back when the work fails', async () => {
    const places = concurrencyLimit(1);
    await expect(places.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await places.run(async () => 'next')).toBe('next');
  });
});
