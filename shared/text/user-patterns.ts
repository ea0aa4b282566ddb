// Regular expressions written by users (Table Schema `constraints.pattern` in XML Schema's dialect,
// the `pattern` and `patternProperties` of secret-type JSON Schemas in JavaScript's) compiled for
// RE2's linear-time engine (re2js),
// never for V8's backtracking RegExp: a pattern like `(a+)+$` costs time in proportion to the value,
// whoever wrote it. Features only a backtracking engine has (backreferences, lookaround) are refused
// with a typed error when the pattern is saved. This is the one home of that rule: every caller goes
// through `compileUserPattern`, which also caches compiled patterns.
import { RE2JS } from 're2js';
import { translateXsdPattern, XsdPatternError } from './xsd-patterns.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

/**
 * How a pattern is written. `ecmascript`: JavaScript's syntax with the `u` flag (JSON Schema's),
 * restricted to what RE2 can run. `xsd`: XML Schema's regular expressions (Table Schema's), translated
 * by xsd-patterns.ts.
 */
export type PatternDialect = 'ecmascript' | 'xsd';

/** `whole`: the whole value must match (Table Schema). `search`: a match anywhere (JSON Schema). */
export type PatternMatch = 'whole' | 'search';

export interface PatternOptions {
  match: PatternMatch;
  dialect?: PatternDialect;
}

export interface UserPattern {
  readonly source: string;
  readonly match: PatternMatch;
  readonly dialect: PatternDialect;
  test(value: string): boolean;
  /** The source, so that pattern caches keyed by text (ajv's) tell patterns apart. */
  toString(): string;
}

/** Longest pattern text accepted. */
export const MAX_PATTERN_LENGTH = 1000;
/**
 * Largest compiled program (RE2's measure of a pattern's cost; `[\s\S]{1000}` is about 1,000). The
 * work per value is at most proportional to value length times program size, so this bounds it.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 2000;
/**
 * Longest RE2 text an XSD pattern may translate to: `\i`, blocks and subtractions expand into code
 * point ranges, and this bounds the parsing and memory a 1,000-character pattern can cost.
 */
export const MAX_TRANSLATED_LENGTH = 50_000;
/**
 * Most Unicode category references (`\p{L}`, and the four each `\w` stands for) an XSD pattern may
 * translate to: RE2 builds each class from the category tables when it compiles, about a
 * millisecond apiece for a negated union, so this bounds the work a pattern costs when it is saved.
 */
export const MAX_TRANSLATED_CATEGORIES = 256;
/** Compiled patterns kept; the oldest is dropped beyond this. */
const CACHE_LIMIT = 1000;

/** A pattern the linear-time engine cannot run, with the reason in words for the client. */
export class UserPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`The pattern "${pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern}" cannot be used: ${reason}.`);
    this.name = 'UserPatternError';
  }
}

const cache = new BoundedMap<string, UserPattern>(CACHE_LIMIT, 'drop-oldest');

/**
 * The reason a JavaScript pattern needs backtracking (a backreference), or undefined. RE2 refuses
 * lookaround itself, and refuses `\1`; but re2js's translation of JavaScript syntax turns `\k<name>`
 * and `\8` into literal letters, which would silently change the pattern's meaning.
 */
function backtrackingFeature(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const ch = source[i];
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'backreferences are not supported';
      if (!inClass && next === 'k') return 'named backreferences are not supported';
      i += 1;
    } else if (ch === '[') inClass = true;
    else if (ch === ']') inClass = false;
  }
  return undefined;
}

/** JavaScript's whitespace (`\s`), in RE2 class syntax: RE2's own `\s` is ASCII only. */
const JS_WHITESPACE = '\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** JavaScript's `.`: anything but a line terminator (RE2's excludes only `\n`). */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/**
 * Gives `.`, `\s` and `\S` (outside a class; `\s` inside one too) JavaScript's meaning in a pattern
 * already in RE2 syntax. `\S` inside a class keeps RE2's ASCII meaning: a class cannot nest a negation.
 */
function withJavaScriptClasses(re2Source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < re2Source.length; i += 1) {
    const ch = re2Source[i]!;
    if (ch === '\\') {
      const next = re2Source[i + 1] ?? '';
      if (next === 's') out += inClass ? JS_WHITESPACE : `[${JS_WHITESPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_WHITESPACE}]`;
      else out += ch + next;
      i += 1;
    } else if (ch === '[' && !inClass) {
      inClass = true;
      out += ch;
    } else if (ch === ']' && inClass) {
      inClass = false;
      out += ch;
    } else if (ch === '.' && !inClass) out += JS_DOT;
    else out += ch;
  }
  return out;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // re2js says "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"; keep what follows.
  const reason = message.replace(/^error parsing regexp:\s*/, '');
  if (/\(\?<?[=!]/.test(reason)) {
    return `lookahead and lookbehind are not supported (${reason})`;
  }
  return reason;
}

/** RE2 syntax within the size limits, or UserPatternError. */
function compileRe2(source: string, re2Source: string): RE2JS {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(re2Source);
  } catch (error) {
    throw new UserPatternError(source, reasonOf(error));
  }
  if (compiled.programSize() > MAX_PATTERN_PROGRAM_SIZE) {
    throw new UserPatternError(source, `it is too complex (program size ${compiled.programSize()}, at most ${MAX_PATTERN_PROGRAM_SIZE})`);
  }
  return compiled;
}

function userPattern(source: string, match: PatternMatch, dialect: PatternDialect, compiled: RE2JS): UserPattern {
  return {
    source,
    match,
    dialect,
    test: match === 'whole' ? (value) => compiled.testExact(value) : (value) => compiled.test(value),
    toString: () => source,
  };
}

function compileXsd(source: string, match: PatternMatch): UserPattern {
  let re2Source: string;
  try {
    re2Source = translateXsdPattern(source);
  } catch (error) {
    if (error instanceof XsdPatternError) throw new UserPatternError(source, error.reason);
    throw error;
  }
  if (re2Source.length > MAX_TRANSLATED_LENGTH) {
    throw new UserPatternError(
      source,
      `it is too large once its classes are expanded (${re2Source.length} characters, at most ${MAX_TRANSLATED_LENGTH})`,
    );
  }
  const categories = re2Source.match(/\\[pP]\{/g)?.length ?? 0;
  if (categories > MAX_TRANSLATED_CATEGORIES) {
    throw new UserPatternError(
      source,
      `it uses too many Unicode categories once translated (${categories}, at most ${MAX_TRANSLATED_CATEGORIES}; \\w counts four)`,
    );
  }
  return userPattern(source, match, 'xsd', compileRe2(source, re2Source));
}

function compileEcmascript(source: string, match: PatternMatch): UserPattern {
  try {
    // Syntax only: compiling a RegExp runs nothing, and it settles what the ECMAScript dialect admits.
    new RegExp(source, 'u');
  } catch (error) {
    throw new UserPatternError(source, `it is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`);
  }
  const feature = backtrackingFeature(source);
  if (feature !== undefined) throw new UserPatternError(source, feature);
  let re2Source: string;
  try {
    re2Source = withJavaScriptClasses(RE2JS.translateRegExp(source));
  } catch (error) {
    throw new UserPatternError(source, reasonOf(error));
  }
  return userPattern(source, match, 'ecmascript', compileRe2(source, re2Source));
}

/**
 * Compiles (or finds in the cache) a user pattern for the linear-time engine; throws
 * UserPatternError when the pattern is invalid, needs backtracking, or is too large.
 */
export function compileUserPattern(source: string, options: PatternOptions): UserPattern {
  const dialect = options.dialect ?? 'ecmascript';
  const key = `${dialect}\u0000${options.match}\u0000${source}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  if (source.length > MAX_PATTERN_LENGTH) throw new UserPatternError(source, `it is longer than ${MAX_PATTERN_LENGTH} characters`);
  const compiled = dialect === 'xsd' ? compileXsd(source, options.match) : compileEcmascript(source, options.match);
  cache.set(key, compiled);
  return compiled;
}

/** Why `source` cannot be used, or undefined when it can (for validators that collect problems). */
export function userPatternProblem(source: string, options: PatternOptions): string | undefined {
  try {
    compileUserPattern(source, options);
    return undefined;
  } catch (error) {
    if (error instanceof UserPatternError) return error.reason;
    throw error;
  }
}
