// Statement text and bound values from a drizzle SQL, for the statements handlers write with the
// sql`` tag. drizzle's own renderer tests every chunk against a dozen entity classes by walking
// prototype chains (`is`), and for the caller-and-site statement of every tenant request that walk
// was an eighth of the process's CPU time under load. The statements the platform writes hold only
// text, nested SQL, identifiers, bound values and lists of them; those are rendered here in one
// pass with plain `instanceof`. Anything else (tables, columns, placeholders, aliased or inlined
// SQL, objects of another drizzle copy) hands the whole statement back to drizzle, so the result is
// always the text and values drizzle itself would produce (render-sql.test.ts holds both to it).
import { randomUUID } from 'node:crypto';
import { Name, Param, Placeholder, SQL, StringChunk } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';

export interface RenderedStatement {
  sql: string;
  params: unknown[];
}

/** Thrown inside the renderer when a chunk needs drizzle's full treatment; never escapes. */
const NEEDS_DRIZZLE = Symbol('needs drizzle');

/** Values drizzle binds as they are: what is neither one of its entities nor a SQL wrapper. */
function isPlainValue(chunk: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(chunk);
  return prototype === Object.prototype || prototype === null || chunk instanceof Date || chunk instanceof Uint8Array;
}

/** `sql.inlineParams()` was called on it (drizzle keeps the flag private). */
function inlinesParams(statement: SQL): boolean {
  return (statement as unknown as { shouldInlineParams: boolean }).shouldInlineParams;
}

function escapeName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Appends the chunks' text to `text` (joined once at the end: a flat string, not a rope of pieces). */
function renderChunks(chunks: readonly unknown[], text: string[], params: unknown[]): void {
  for (const chunk of chunks) {
    if (chunk === undefined) continue;
    const filled = chunk instanceof SQL ? filledTemplates.get(chunk) : undefined;
    if (filled !== undefined) {
      appendFilled(filled, text, params);
      continue;
    }
    // A function is a pgEnum (rendered as its name), never a value.
    if (typeof chunk === 'function') throw NEEDS_DRIZZLE;
    if (chunk === null || typeof chunk !== 'object') {
      params.push(chunk);
      text.push(`$${params.length}`);
    } else if (chunk instanceof StringChunk) {
      for (const piece of chunk.value) text.push(piece);
    } else if (chunk instanceof SQL) {
      if (inlinesParams(chunk)) throw NEEDS_DRIZZLE;
      renderChunks(chunk.queryChunks, text, params);
    } else if (chunk instanceof Name) {
      text.push(escapeName(chunk.value));
    } else if (chunk instanceof Param) {
      if (chunk.value instanceof Placeholder) throw NEEDS_DRIZZLE;
      const value: unknown = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isPlainValue(value)) throw NEEDS_DRIZZLE;
      params.push(value);
      text.push(`$${params.length}`);
    } else if (Array.isArray(chunk)) {
      text.push('(');
      chunk.forEach((item: unknown, index) => {
        if (index > 0) text.push(', ');
        renderChunks([item], text, params);
      });
      text.push(')');
    } else if (isPlainValue(chunk)) {
      params.push(chunk);
      text.push(`$${params.length}`);
    } else {
      throw NEEDS_DRIZZLE;
    }
  }
}

/**
 * A statement rendered once and sent again and again with other values in some of its places (a
 * record read by its key, each time another key): its text is the same string every time, which the
 * prepared-statement lookups hash once, and nothing is built or rendered but the values.
 */
export interface StatementTemplate {
  sql: string;
  params: readonly unknown[];
  /** Where the varying value goes among `params`. */
  slots: readonly number[];
}

const PLACEHOLDER = /\$(\d+)/g;

/**
 * The template of `statement`, built with `standIn` wherever the varying value goes; undefined when
 * it cannot be one: `standIn` bound nowhere, or text with a `$n` that is not its own placeholder,
 * which could not be renumbered where the template is nested.
 */
export function templateOf(statement: SQL, standIn: string, dialect: PgDialect): StatementTemplate | undefined {
  const { sql: text, params } = renderAnew(statement, dialect);
  const slots = params.flatMap((param, index) => (param === standIn ? [index] : []));
  const numbers = [...text.matchAll(PLACEHOLDER)].map((match) => Number(match[1]));
  if (slots.length === 0 || numbers.length !== params.length || numbers.some((number, index) => number !== index + 1)) return undefined;
  return { sql: text, params, slots };
}

/** A statement made from a template: the template, the value it was made for, and how it is built. */
interface FilledTemplate {
  template: StatementTemplate;
  value: string;
  build: (value: string) => SQL;
}

const filledTemplates = new WeakMap<SQL, FilledTemplate>();

/**
 * The template's statement with `value` in its slots. Its text is rendered from the template alone;
 * anything else that reads its chunks (drizzle's renderer, a test that reads statements) gets them
 * from `build(value)`, made only then.
 */
export function filledTemplate(template: StatementTemplate, value: string, build: (value: string) => SQL): SQL {
  const statement = new SQL([]);
  let chunks: SQL['queryChunks'] | undefined;
  Object.defineProperty(statement, 'queryChunks', {
    get: () => {
      chunks ??= build(value).queryChunks;
      return chunks;
    },
  });
  filledTemplates.set(statement, { template, value, build });
  return statement;
}

/** Where a filled template's value stands while a template around it is made: no value can be this text. */
const NESTED_STAND_IN = `\u0000${randomUUID()}`;

/**
 * `around(inner)`; when `inner` was filled from a template, the whole is made a template too, once
 * per inner template (kept in `made`), and filled in with inner's value, so a statement wrapped
 * around a templated read is not rendered anew either. `around` must make the same statement for
 * the same argument as long as `made` is kept.
 */
export function aroundTemplate(
  inner: SQL,
  around: (inner: SQL) => SQL,
  made: WeakMap<StatementTemplate, StatementTemplate | null>,
  dialect: PgDialect,
): SQL {
  const filled = filledTemplates.get(inner);
  if (filled === undefined) return around(inner);
  const { template: innerTemplate, value, build } = filled;
  let template = made.get(innerTemplate);
  if (template === undefined) {
    template = templateOf(around(filledTemplate(innerTemplate, NESTED_STAND_IN, build)), NESTED_STAND_IN, dialect) ?? null;
    made.set(innerTemplate, template);
  }
  if (template === null) return around(inner);
  return filledTemplate(template, value, (nested) => around(filledTemplate(innerTemplate, nested, build)));
}

/** A filled template's text and values, numbered on from the values before it. */
function appendFilled({ template, value }: FilledTemplate, text: string[], params: unknown[]): void {
  const offset = params.length;
  text.push(offset === 0 ? template.sql : template.sql.replace(PLACEHOLDER, (_, number: string) => `$${Number(number) + offset}`));
  for (const param of template.params) params.push(param);
  for (const slot of template.slots) params[offset + slot] = value;
}

/** Statements marked by `sentRepeatedly`, and their rendering once made. */
const repeated = new WeakSet<SQL>();
const keptRenderings = new WeakMap<SQL, RenderedStatement>();

/**
 * Marks a statement that is built once and then sent unchanged many times (a reused caller
 * context's guard): it is rendered on its first send only. Later sends get the same text string,
 * which the prepared-statement lookups have hashed already, and a copy of its values.
 */
export function sentRepeatedly(statement: SQL): SQL {
  repeated.add(statement);
  return statement;
}

/** The statement as text with `$n` placeholders and its values, exactly as `dialect` renders it. */
export function renderStatement(statement: SQL, dialect: PgDialect): RenderedStatement {
  const kept = keptRenderings.get(statement);
  if (kept !== undefined) return { sql: kept.sql, params: [...kept.params] };
  const rendered = renderAnew(statement, dialect);
  if (repeated.has(statement)) keptRenderings.set(statement, { sql: rendered.sql, params: [...rendered.params] });
  return rendered;
}

function renderAnew(statement: SQL, dialect: PgDialect): RenderedStatement {
  const filled = filledTemplates.get(statement);
  if (filled !== undefined) {
    const text: string[] = [];
    const params: unknown[] = [];
    appendFilled(filled, text, params);
    return { sql: text[0]!, params };
  }
  if (inlinesParams(statement)) return dialect.sqlToQuery(statement);
  const text: string[] = [];
  const params: unknown[] = [];
  try {
    renderChunks(statement.queryChunks, text, params);
    return { sql: text.join(''), params };
  } catch (error) {
    if (error === NEEDS_DRIZZLE) return dialect.sqlToQuery(statement);
    throw error;
  }
}
