// Checks records against a compiled table: types, formats, constraints and enum. A pure function
// over the TableDescriptor, shared by `validate_data` and the record endpoints. Unique constraints
// and foreign keys need the database and are not checked here.
import { SEARCH_VECTOR_FIELD, type FieldDescriptor, type TableDescriptor } from './table-descriptor.ts';

export type RecordErrors = Record<string, string[]>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const YEARMONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const DURATION = /^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;

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
      if (field.format === 'email') return EMAIL.test(value);
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
      return typeof value === 'string' && DURATION.test(value);
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
  const format = field.type === 'string' && field.format !== undefined && field.format !== 'default' ? ` (format ${field.format})` : '';
  return `Expected a value of type ${field.type}${format}.`;
}

/** Equal as JSON values; primitives compare directly, which is what their JSON text would say. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Anchored like Table Schema patterns: the whole value must match. */
export function anchoredPattern(pattern: string): string {
  return `^(?:${pattern})$`;
}

/** Compiled patterns, shared by every record of every table that uses them. */
const compiledPatterns = new Map<string, RegExp>();
function patternOf(pattern: string): RegExp {
  let compiled = compiledPatterns.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(anchoredPattern(pattern), 'u');
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
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
  if (c.pattern !== undefined && typeof value === 'string' && !patternOf(c.pattern).test(value)) {
    problems.push(`The value does not match the pattern ${c.pattern}.`);
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
  const errors: RecordErrors = {};
  if (!isPlainObject(record)) return { non_field_errors: ['Each record must be a JSON object.'] };
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
