// The JSON Schema of a secret type, checked with ajv: a schema document is accepted only when ajv
// compiles it (meta-schema valid, no unknown keywords, no references it would have to fetch), and a
// secret value must satisfy its type's schema. Each schema gets an Ajv instance of its own, so one
// tenant's `$id` cannot clash with another's and dropping a cached validator frees everything.
// Every `pattern` and `patternProperties` of a schema runs on the linear-time engine of
// user-patterns.ts (ajv's `code.regExp`), so a tenant's pattern cannot hold the process.
// ajv and ajv-formats (some 100 KB) and the pattern engine (re2js, 147 KB) load with the first schema
// checked, not with the secrets bundle: listing and reading secrets never needs them.
import type { Ajv, CodeOptions, ErrorObject, ValidateFunction } from 'ajv';
import { lazyImport } from '#shared/lazy-import.ts';
import { BoundedMap } from '#shared/bounded-map.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

/** Limits on a schema document: it is compiled to code, so its size bounds the work. */
export const MAX_SCHEMA_BYTES = 32 * 1024;
const CACHE_LIMIT = 100;

// Both are CommonJS: their `default` is `module.exports` in Node and in an esbuild bundle alike,
// where a named import (`{ Ajv }`) finds the export only in Node, which reads the names from the source.
const loadAjv = lazyImport(async () => {
  const [ajv, formats] = await Promise.all([import('ajv'), import('ajv-formats')]);
  return { Ajv: ajv.default.Ajv, addFormats: formats.default.default };
});
const compiled = new BoundedMap<string, ValidateFunction>(CACHE_LIMIT, 'drop-oldest');

export class InvalidSchemaError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'InvalidSchemaError';
  }
}

async function newAjv(): Promise<Ajv> {
  const [{ Ajv, addFormats }, { compileUserPattern }] = await Promise.all([loadAjv(), loadPatternEngine()]);
  /** JSON Schema's `pattern` is a search (unanchored); ajv asks once per pattern, at compile time. */
  const linearTimeEngine: NonNullable<CodeOptions['regExp']> = Object.assign(
    (pattern: string) => compileUserPattern(pattern, { match: 'search' }),
    { code: 'compileUserPattern' },
  );
  const ajv = new Ajv({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    allErrors: false,
    logger: false,
    code: { regExp: linearTimeEngine },
    // Its strict check runs each patternProperties pattern through V8's RegExp over the schema's
    // property names at compile time: both come from the client.
    allowMatchingProperties: true,
  });
  addFormats(ajv);
  return ajv;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `${error.instancePath === '' ? 'value' : `value${error.instancePath}`} ${error.message ?? 'is invalid'}`,
  );
}

/** The validator of a schema document; throws InvalidSchemaError when it is not a usable JSON Schema. */
export async function validatorFor(schema: unknown): Promise<ValidateFunction> {
  const text = JSON.stringify(schema);
  const cached = compiled.get(text);
  if (cached !== undefined) return cached;
  if (Buffer.byteLength(text, 'utf8') > MAX_SCHEMA_BYTES) {
    throw new InvalidSchemaError([`The schema is larger than ${MAX_SCHEMA_BYTES} bytes.`]);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new InvalidSchemaError(['The schema must be a JSON object.']);
  }
  const ajv = await newAjv();
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    if (error instanceof (await loadPatternEngine()).UserPatternError) throw new InvalidSchemaError([error.message]);
    throw new InvalidSchemaError([error instanceof Error ? error.message : 'The schema cannot be compiled.']);
  }
  compiled.set(text, validate);
  return validate;
}

/** Problems of `value` against `schema`, empty when it satisfies it. */
export async function valueProblems(schema: unknown, value: unknown): Promise<string[]> {
  const validate = await validatorFor(schema);
  return validate(value) ? [] : describe(validate.errors);
}
