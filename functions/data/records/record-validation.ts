// Prepares record bodies for writing: the field checks come from the table side's validator (the
// same rules the materialized CHECK constraints enforce); this module adds what a write needs on top,
// defaults and generated UUID keys, and the spec's `{error: 'Validation failed', details}` error.
import { randomUUID } from 'node:crypto';
import { ValidationError, type FieldErrors } from '#shared/errors.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { validateRecord as recordProblems } from '#functions/data/tables/record-validation.ts';

export const VALIDATION_FAILED = 'Validation failed';

export type RecordValues = Record<string, unknown>;
export type WriteMode = 'create' | 'patch';

/** Values keyed by field name, without a prototype whose members would read as fields. */
export function newRecordValues(): RecordValues {
  return Object.create(null) as RecordValues;
}

export function validationFailed(details: FieldErrors): ValidationError {
  return new ValidationError(VALIDATION_FAILED, { fieldErrors: details });
}

/**
 * Validates one record and returns the values to write. On create, defaults are applied and an
 * omitted generated UUID key is filled in; an omitted identity key stays omitted for the sequence.
 */
export function validateRecord(table: TableDescriptor, input: unknown, mode: WriteMode, errors: FieldErrors, prefix = ''): RecordValues {
  const problems = recordProblems(table, input, { partial: mode === 'patch' });
  for (const field in problems) (errors[`${prefix}${field}`] ??= []).push(...problems[field]!);
  const values = newRecordValues();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return values;
  const body = input as RecordValues;
  for (const field of table.fields) {
    // Own members only: a field named `constructor` that the body omits is absent, not Object.
    let value = Object.hasOwn(body, field.name) ? body[field.name] : undefined;
    if (value === undefined && mode === 'create') {
      if (field.default !== undefined) value = field.default;
      else if (field.generated === 'uuid') value = randomUUID();
    }
    if (value !== undefined) values[field.name] = value;
  }
  return values;
}

/** Validates a single body or each element of an array; throws the collected errors at once. */
export function validateRecords(table: TableDescriptor, inputs: unknown[], mode: WriteMode, indexed: boolean): RecordValues[] {
  const errors = Object.create(null) as FieldErrors;
  const values = inputs.map((input, index) => validateRecord(table, input, mode, errors, indexed ? `${index}.` : ''));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return values;
}
