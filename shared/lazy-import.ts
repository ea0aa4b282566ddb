// A module loaded on first use instead of when a bundle is imported. Libraries that only some
// requests need (MIME tables, file signatures, JSON Schema compilers) would otherwise be parsed and
// run by every cold start; behind `await import()` esbuild puts them in a chunk of their own that
// Node reads the first time a request calls for it.

/**
 * Wraps `load` so that it runs once: every caller shares the first load's promise. A load that
 * fails is forgotten, so the next caller tries again instead of inheriting the failure for ever.
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
