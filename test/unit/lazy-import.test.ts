// lazyImport: one load shared by every caller, and a failed load retried rather than remembered.
import { describe, expect, it } from 'vitest';
import { lazyImport } from '#shared/lazy-import.ts';

describe('lazyImport', () => {
  it('loads once, however many callers ask at the same time or later', async () => {
    let loads = 0;
    const load = lazyImport(async () => {
      loads += 1;
      return { value: 42 };
    });
    const [first, second] = await Promise.all([load(), load()]);
    const third = await load();
    expect(first.value).toBe(42);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(loads).toBe(1);
  });

  it('forgets a failed load, so the next caller loads again', async () => {
    let loads = 0;
    const load = lazyImport(async () => {
      loads += 1;
      if (loads === 1) throw new Error('chunk missing');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow('chunk missing');
    await expect(load()).resolves.toBe('loaded');
    expect(loads).toBe(2);
  });
});
