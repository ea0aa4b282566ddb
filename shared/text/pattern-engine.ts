// The user-pattern engine (./user-patterns.ts: re2js and the XML Schema translation, some 170 KB of
// code) loaded when a pattern is first met, not with a group's handler: the console meets one only in
// a secret type's schema, the data group only in a table schema that declares one (most declare none;
// the engine was a quarter of what that group's cold start compiled). Table schemas are compiled
// synchronously, so the engine is loaded before: the places a schema comes from (the table and
// migration repositories, and the services that take one in a request) call `loadPatternEngineFor`,
// and the compiler reaches it through `patternEngine()`.
import { lazyImport } from '#shared/lazy-import.ts';

type PatternEngine = typeof import('./user-patterns.ts');

let engine: PatternEngine | undefined;

const loadEngine = lazyImport(async () => {
  engine = await import('./user-patterns.ts');
  return engine;
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a Table Schema document declares a pattern: `fields[*].constraints.pattern`, where the compiler reads them. */
export function declaresPattern(schema: unknown): boolean {
  const fields = isRecord(schema) ? schema.fields : undefined;
  return (
    Array.isArray(fields) &&
    fields.some((field) => isRecord(field) && isRecord(field.constraints) && Object.hasOwn(field.constraints, 'pattern'))
  );
}

/** Loads the engine when one of `schemas` declares a pattern (at once when it is loaded already). */
export async function loadPatternEngineFor(schemas: Iterable<unknown>): Promise<void> {
  if (engine !== undefined) return;
  for (const schema of schemas) {
    if (declaresPattern(schema)) {
      await loadEngine();
      return;
    }
  }
}

/** Loads the engine whatever schemas come: for JSON Schemas (secret types), and hand-made schemas in tests. */
export function loadPatternEngine(): Promise<PatternEngine> {
  return loadEngine();
}

/** The loaded engine; a schema with a pattern that did not come through `loadPatternEngineFor` is a bug, not a user's error. */
export function patternEngine(): PatternEngine {
  if (engine === undefined) {
    throw new Error('A table schema pattern was compiled before the pattern engine was loaded (see shared/text/pattern-engine.ts)');
  }
  return engine;
}
