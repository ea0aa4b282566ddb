// The process-local caches and guesses (verified tokens, tenant guesses, fused-read hints, table
// descriptors, relation graphs, rate-limit leases, compiled patterns and schemas) live as long as a
// warm Lambda or the dev server; a process serving many hosts, tables or callers must not let them
// grow without limit.

/**
 * A Map that holds at most `limit` keys. A new key at the limit first empties it (`clear`: a cache or
 * guess simply starts over, cheaper than tracking use) or drops the key set longest ago
 * (`drop-oldest`: for values that are dear to make again, such as compiled patterns). Setting a key
 * already held never evicts.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(
    private readonly limit: number,
    private readonly whenFull: 'clear' | 'drop-oldest' = 'clear',
  ) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) {
      if (this.whenFull === 'clear') this.clear();
      else this.delete(this.keys().next().value as K);
    }
    return super.set(key, value);
  }
}
