// Checks a record body against its table before any write: unknown fields, the read-only
// search_vector, required fields, types and every constraint. Failures collect per field into the
// spec's `{error: 'Validation failed', details: {field: [messages]}}`.
// (Kept in the records room: functions/data/tables/ had no shared record validation when written.)
import { randomUUID } from 'node:crypto';
import { ValidationError, type FieldErrors } from '#shared/errors.ts';
import { SEARCH_VECTOR_FIELD, type FieldDescriptor, type TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { parseScalar } from './query/field-sql.ts';

export const VALIDATION_FAILED = 'Validation failed';

export type RecordValues = Record<string, unknown>;
export type WriteMode = 'create' | 'patch';

export function validationFailed(details: FieldErrors): ValidationError {
  return new ValidationError(VALIDATION_FAILED, { fieldErrors: details });
}

function typeProblem(field: FieldDescriptor, value: unknown): string | undefined {
  const expected = `Expected a value of type ${field.type}.`;
  switch (field.type) {
    case 'string':
    case 'yearmonth':
    case 'duration':
      return typeof value === 'string' ? undefined : expected;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : expected;
    case 'integer':
    case 'year':
      return Number.isSafeInteger(value) ? undefined : expected;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : expected;
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? undefined : expected;
    case 'array':
      return Array.isArray(value) ? undefined : expected;
    case 'date':
    case 'time':
    case 'datetime':
      return typeof value === 'string' && parseScalar(field, value) !== undefined ? undefined : expected;
    default:
      return undefined;
  }
}

function formatProblem(field: FieldDescriptor, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return 'Enter a valid email address.';
  if (field.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return 'Enter a valid UUID.';
  if (field.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return 'Enter a valid URI.';
  return undefined;
}

function compare(left: unknown, right: number | string): number {
  if (typeof left === 'number') return left - Number(right);
  return String(left) < String(right) ? -1 : String(left) > String(right) ? 1 : 0;
}

function constraintProblems(field: FieldDescriptor, value: unknown): string[] {
  const rules = field.constraints;
  const problems: string[] = [];
  if (rules.minimum !== undefined && compare(value, rules.minimum) < 0) problems.push(`Ensure this value is greater than or equal to ${rules.minimum}.`);
  if (rules.maximum !== undefined && compare(value, rules.maximum) > 0) problems.push(`Ensure this value is less than or equal to ${rules.maximum}.`);
  const length = typeof value === 'string' || Array.isArray(value) ? value.length : undefined;
  if (length !== undefined && rules.minLength !== undefined && length < rules.minLength) problems.push(`Ensure this value has at least ${rules.minLength} characters.`);
  if (length !== undefined && rules.maxLength !== undefined && length > rules.maxLength) problems.push(`Ensure this value has at most ${rules.maxLength} characters.`);
  if (rules.pattern !== undefined && typeof value === 'string' && !safeTest(rules.pattern, value)) problems.push(`Value does not match the pattern ${rules.pattern}.`);
  if (rules.enum !== undefined && !rules.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    problems.push(`Value must be one of: ${rules.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}.`);
  }
  return problems;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return new RegExp(pattern).test(value);
  }
}

/**
 * Validates one record. On create, defaults are applied and an omitted generated UUID key is filled
 * in; an omitted identity key stays omitted for the sequence. Returns the values to write.
 */
export function validateRecord(table: TableDescriptor, input: unknown, mode: WriteMode, errors: FieldErrors, prefix = ''): RecordValues {
  const add = (name: string, message: string): void => {
    (errors[`${prefix}${name}`] ??= []).push(message);
  };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    add('non_field_errors', 'Expected a JSON object.');
    return {};
  }
  const body = input as RecordValues;
  const fields = new Map(table.fields.map((field) => [field.name, field]));
  const values: RecordValues = {};
  for (const [name, value] of Object.entries(body)) {
    if (name === SEARCH_VECTOR_FIELD) add(name, 'search_vector is generated by the database and cannot be written.');
    else if (!fields.has(name)) add(name, 'Unknown field.');
  }
  for (const field of table.fields) {
    let value = body[field.name];
    if (value === undefined && mode === 'create') {
      if (field.default !== undefined) value = field.default;
      else if (field.generated === 'uuid') value = randomUUID();
    }
    if (value === undefined) {
      if (mode === 'create' && field.constraints.required && field.generated !== 'identity') add(field.name, 'This field is required.');
      continue;
    }
    if (value === null) {
      if (field.constraints.required || table.primaryKey.includes(field.name)) add(field.name, 'This field may not be null.');
      else values[field.name] = null;
      continue;
    }
    const problem = typeProblem(field, value) ?? formatProblem(field, value);
    if (problem) {
      add(field.name, problem);
      continue;
    }
    for (const message of constraintProblems(field, value)) add(field.name, message);
    values[field.name] = value;
  }
  return values;
}

/** Validates a single body or each element of an array; throws the collected errors at once. */
export function validateRecords(table: TableDescriptor, inputs: unknown[], mode: WriteMode, indexed: boolean): RecordValues[] {
  const errors: FieldErrors = {};
  const values = inputs.map((input, index) => validateRecord(table, input, mode, errors, indexed ? `${index}.` : ''));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return values;
}
