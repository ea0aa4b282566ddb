// The process-local caches' bound (shared/bounded-map.ts): a flood of distinct keys (hosts, tokens,
// patterns a hostile caller makes up) never grows a cache past its limit.
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '#shared/bounded-map.ts';

describe('BoundedMap', () => {
  it('starts over when a new key comes at the limit, and keeps a held key updatable', () => {
    const map = new BoundedMap<string, number>(3);
    for (const key of ['a', 'b', 'c']) map.set(key, 1);
    map.set('b', 2);
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 1],
    ]);
    map.set('d', 1);
    expect([...map]).toEqual([['d', 1]]);
  });

  it('drops the key set longest ago when asked to', () => {
    const map = new BoundedMap<string, number>(2, 'drop-oldest');
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('never holds more than its limit under a flood of distinct keys, __proto__ among them', () => {
    for (const whenFull of ['clear', 'drop-oldest'] as const) {
      const map = new BoundedMap<string, number>(100, whenFull);
      for (let index = 0; index < 10_000; index += 1) map.set(index === 5_000 ? '__proto__' : `host-${index}`, index);
      expect(map.size).toBeLessThanOrEqual(100);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});
