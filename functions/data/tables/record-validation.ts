// Checks records against a compiled table: types, formats, constraints and enum. A pure function
// over the TableDescriptor, shared by `validate_data` and the record endpoints. Unique constraints
// and foreign keys need the database and are not checked here.
import { compileUserPattern, UserPatternError, type UserPattern } from '#shared/text/user-patterns.ts';
import { SEARCH_VECTOR_FIELD, type FieldDescriptor, type TableDescriptor } from './table-descriptor.ts';

export type RecordErrors = Record<string, string[]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const YEARMONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const DURATION = /^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;

const DURATION_PARTS = /^P(?:([\d.]+)Y)?(?:([\d.]+)M)?(?:([\d.]+)W)?(?:([\d.]+)D)?(?:T(?:([\d.]+)H)?(?:([\d.]+)M)?(?:([\d.]+)S)?)?$/;
const INT32_MAX = 2 ** 31 - 1;
const INT64_MAX = 2 ** 63 - 1;

/**
 * Whether a well-formed ISO 8601 duration fits PostgreSQL's interval: each number and the month and
 * day totals in 32 bits, the time part in 64-bit microseconds (`P99999999999Y` is 22015 there).
 */
function durationFits(text: string): boolean {
  const parts = DURATION_PARTS.exec(text);
  if (parts === null) return false;
  const [years = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0] = parts.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  if ([years, months, weeks, days, hours, minutes, seconds].some((n) => !(n <= INT32_MAX))) return false;
  // Fractions spill downwards as PostgreSQL spreads them: a month is 30 days, a day 86,400 seconds.
  const allMonths = years * 12 + months;
  const allDays = weeks * 7 + days + (allMonths - Math.trunc(allMonths)) * 30;
  const micros = (hours * 3600 + minutes * 60 + seconds + (allDays - Math.trunc(allDays)) * 86_400) * 1e6;
  return allMonths <= INT32_MAX && allDays <= INT32_MAX && micros < INT64_MAX;
}

const WHITESPACE = /\s/;

/**
 * `local@domain` with no whitespace, one `@`, and a dot inside the domain (not first or last). The
 * regular expression this replaces, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, backtracked quadratically on
 * a value of many dots (40,000 characters: 7 s); these are single passes.
 */
function validEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at <= 0 || text.indexOf('@', at + 1) !== -1 || WHITESPACE.test(text)) return false;
  return text.slice(at + 2, -1).includes('.');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.getUTCFullYear() === Number(match[1]) && date.getUTCMonth() === Number(match[2]) - 1 && date.getUTCDate() === Number(match[3]);
}

function validGeopoint(value: unknown): boolean {
  const inRange = (lon: number, lat: number) => Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
  if (typeof value === 'string') {
    const parts = value.split(',').map((part) => Number(part.trim()));
    return parts.length === 2 && inRange(parts[0]!, parts[1]!);
  }
  if (Array.isArray(value)) return value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number' && inRange(value[0], value[1]);
  if (isPlainObject(value)) return typeof value.lon === 'number' && typeof value.lat === 'number' && inRange(value.lon, value.lat);
  return false;
}

/** Whether `value` is of the field's type and format (a plain switch: it runs for every value of a bulk write). */
function isOfType(field: Pick<FieldDescriptor, 'type' | 'format'>, value: unknown): boolean {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return false;
      if (field.format === 'email') return validEmail(value);
      if (field.format === 'uuid') return UUID.test(value);
      if (field.format === 'uri') return URL.canParse(value);
      return true;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'date':
      return typeof value === 'string' && validDate(value);
    case 'time':
      return typeof value === 'string' && TIME.test(value);
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')));
    case 'year':
      return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 9999;
    case 'yearmonth':
      return typeof value === 'string' && YEARMONTH.test(value);
    case 'duration':
      return typeof value === 'string' && DURATION.test(value) && durationFits(value);
    case 'geopoint':
      return validGeopoint(value);
    case 'geojson':
      return isPlainObject(value) && typeof value.type === 'string';
    case 'any':
      return true;
  }
}

/** Why `value` is not of the field's type and format, or undefined when it is. */
export function typeProblem(field: Pick<FieldDescriptor, 'type' | 'format'>, value: unknown): string | undefined {
  if (isOfType(field, value)) return undefined;
  if (field.type === 'duration' && typeof value === 'string' && DURATION.test(value)) {
    return 'This duration is out of range: each number, the months and the days must stay below 2^31.';
  }
  const format = field.type === 'string' && field.format !== undefined && field.format !== 'default' ? ` (format ${field.format})` : '';
  return `Expected a value of type ${field.type}${format}.`;
}

/** Equal as JSON values; primitives compare directly, which is what their JSON text would say. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether `value` matches a Table Schema pattern (the whole value must match), on the linear-time
 * engine. A stored pattern that engine cannot run (saved before it was the rule) is a problem of
 * the value's field, never a 500.
 */
function patternProblem(pattern: string, value: string): string | undefined {
  let compiled: UserPattern;
  try {
    compiled = compileUserPattern(pattern, { match: 'whole' });
  } catch (error) {
    if (error instanceof UserPatternError) return `${error.message} Change the field's pattern in the table schema.`;
    throw error;
  }
  return compiled.test(value) ? undefined : `The value does not match the pattern ${pattern}.`;
}

/** The primitive members of an enum, for a lookup instead of a comparison with each member. */
const enumPrimitives = new WeakMap<readonly unknown[], ReadonlySet<unknown>>();
function inEnum(members: readonly unknown[], value: unknown): boolean {
  if (typeof value === 'object' && value !== null) return members.some((allowed) => sameJson(allowed, value));
  let primitives = enumPrimitives.get(members);
  if (primitives === undefined) {
    primitives = new Set(members.filter((member) => typeof member !== 'object' || member === null));
    enumPrimitives.set(members, primitives);
  }
  return primitives.has(value);
}

const NO_PROBLEMS: readonly string[] = [];

function constraintProblems(field: FieldDescriptor, value: unknown): readonly string[] {
  const c = field.constraints;
  if (c.minimum === undefined && c.maximum === undefined && c.minLength === undefined && c.maxLength === undefined && c.pattern === undefined && c.enum === undefined) {
    return NO_PROBLEMS;
  }
  const problems: string[] = [];
  if (c.minimum !== undefined && (typeof value === 'number' || typeof value === 'string') && value < c.minimum) {
    problems.push(`Ensure this value is greater than or equal to ${c.minimum}.`);
  }
  if (c.maximum !== undefined && (typeof value === 'number' || typeof value === 'string') && value > c.maximum) {
    problems.push(`Ensure this value is less than or equal to ${c.maximum}.`);
  }
  if (c.minLength !== undefined || c.maxLength !== undefined) {
    // Characters, not UTF-16 units; counted only where a length is constrained (bulk writes check every value).
    const length = typeof value === 'string' ? [...value].length : Array.isArray(value) ? value.length : undefined;
    if (length !== undefined && c.minLength !== undefined && length < c.minLength) problems.push(`Ensure this value has at least ${c.minLength} characters or items.`);
    if (length !== undefined && c.maxLength !== undefined && length > c.maxLength) problems.push(`Ensure this value has at most ${c.maxLength} characters or items.`);
  }
  if (c.pattern !== undefined && typeof value === 'string') {
    const problem = patternProblem(c.pattern, value);
    if (problem !== undefined) problems.push(problem);
  }
  if (c.enum !== undefined && !inEnum(c.enum, value)) {
    problems.push(`The value must be one of: ${c.enum.map((v) => JSON.stringify(v)).join(', ')}.`);
  }
  return problems;
}

/** The field names of a descriptor, built once per descriptor rather than once per record. */
const fieldNames = new WeakMap<TableDescriptor, ReadonlySet<string>>();
function fieldNamesOf(table: TableDescriptor): ReadonlySet<string> {
  let names = fieldNames.get(table);
  if (names === undefined) {
    names = new Set(table.fields.map((field) => field.name));
    fieldNames.set(table, names);
  }
  return names;
}

/**
 * Field errors of one record. `partial` (an update) checks only the fields present. A generated key
 * field and a field with a default may be omitted; `search_vector` and unknown fields are refused.
 */
function addProblem(errors: RecordErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

export function validateRecord(table: TableDescriptor, record: unknown, options: { partial?: boolean } = {}): RecordErrors {
  // Keyed by the client's member names (`constructor`, `__proto__`): no prototype to collide with.
  const errors: RecordErrors = Object.create(null) as RecordErrors;
  if (!isPlainObject(record)) {
    errors.non_field_errors = ['Each record must be a JSON object.'];
    return errors;
  }
  const known = fieldNamesOf(table);
  for (const name of Object.keys(record)) {
    if (name === SEARCH_VECTOR_FIELD && table.search !== undefined) addProblem(errors, name, 'This field is computed and cannot be written.');
    else if (!known.has(name)) addProblem(errors, name, 'Unknown field.');
  }
  for (const field of table.fields) {
    const present = Object.hasOwn(record, field.name) && record[field.name] !== undefined;
    const value = present ? record[field.name] : undefined;
    const required = field.constraints.required === true || table.primaryKey.includes(field.name);
    if (!present) {
      if (options.partial === true || field.generated !== undefined || field.default !== undefined) continue;
      if (required) addProblem(errors, field.name, 'This field is required.');
      continue;
    }
    if (value === null) {
      if (required) addProblem(errors, field.name, 'This field may not be null.');
      continue;
    }
    const problem = typeProblem(field, value);
    if (problem !== undefined) {
      addProblem(errors, field.name, problem);
      continue;
    }
    for (const message of constraintProblems(field, value)) addProblem(errors, field.name, message);
  }
  return errors;
}

/** `validate_data`: one string per problem, naming the row (1-based) and the field. */
export function validateRows(table: TableDescriptor, rows: unknown[]): { is_valid: boolean; errors: string[]; validated_rows: number } {
  const errors: string[] = [];
  rows.forEach((row, index) => {
    for (const [field, messages] of Object.entries(validateRecord(table, row))) {
      for (const message of messages) {
        errors.push(message === 'This field is required.' ? `Row ${index + 1}: missing required field '${field}'.` : `Row ${index + 1}: field '${field}': ${message}`);
      }
    }
  });
  return { is_valid: errors.length === 0, errors, validated_rows: rows.length };
}
