// At most `limit` pieces of work at once; the rest start in arrival order as places free up. Used
// where one process must keep a shared resource from being taken whole: the dev server's requests
// (infra/local/dev-server.ts) and password hashing on libuv's thread pool (shared/auth/passwords.ts).
export interface ConcurrencyLimit {
  /** Runs `work` once a place is free; the place is given back when `work` settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function concurrencyLimit(limit: number): ConcurrencyLimit {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(work) {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        // The place passes straight to the next in line, so the count stays as it is.
        if (next !== undefined) next();
        else running -= 1;
      }
    },
  };
}
