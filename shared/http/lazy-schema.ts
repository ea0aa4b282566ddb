// Schemas built on first use instead of when their module loads. Building a zod schema runs code
// (every object, string and array schema is an instance with its methods attached), and a route
// table's schemas are hundreds of them: a cold start that built them all would pay for every route
// of its group to answer one. Response schemas are read only by the OpenAPI document and the
// test-time response check, so a deployed function never builds them at all.
import type { ZodType } from 'zod';

/**
 * Wraps `build` so that it runs once, on the first call: every later call answers the same
 * instance, which matters beyond the saved work, since the OpenAPI document tells its components
 * apart by schema identity.
 */
export function lazySchema<T extends ZodType>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
