// Prepares record bodies for writing: the field checks and canonical values come from the table
// side's validator (the same rules validate_data answers and the materialized CHECKs enforce); this
// module adds what a write needs on top, defaults and generated UUID keys, and the spec's
// `{error: 'Validation failed', details}` error.
import { randomUUID } from 'node:crypto';
import { addFieldMessages, ValidationError, type FieldErrors } from '#shared/errors.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { batchDuplicates, checkRecord, withDefaults, type RecordValues } from '#functions/data/tables/record-checks.ts';

export const VALIDATION_FAILED = 'Validation failed';

export type { RecordValues };
export type WriteMode = 'create' | 'patch';

/** Values keyed by field name, without a prototype whose members would read as fields. */
export function newRecordValues(): RecordValues {
  return Object.create(null) as RecordValues;
}

export function validationFailed(details: FieldErrors): ValidationError {
  return new ValidationError(VALIDATION_FAILED, { fieldErrors: details });
}

function collect(errors: FieldErrors, prefix: string, problems: Record<string, string[]>): void {
  for (const field in problems) addFieldMessages(errors, `${prefix}${field}`, ...problems[field]!);
}

/**
 * Validates a single body or each element of an array and returns the canonical values to write;
 * throws the collected errors at once. On create, defaults are applied, an omitted generated UUID key
 * is filled in (an omitted identity key stays omitted for the sequence), and rows that repeat a key
 * or unique value of an earlier row of the batch are refused as validate_data refuses them.
 */
export function validateRecords(table: TableDescriptor, inputs: unknown[], mode: WriteMode, indexed: boolean): RecordValues[] {
  const errors = Object.create(null) as FieldErrors;
  const prefix = (index: number) => (indexed ? `${index}.` : '');
  const values = inputs.map((input, index) => {
    const check = checkRecord(table, input, { partial: mode === 'patch' });
    collect(errors, prefix(index), check.errors);
    return mode === 'create' ? withDefaults(table, check.values) : check.values;
  });
  if (mode === 'create') for (const [index, problems] of batchDuplicates(table, values)) collect(errors, prefix(index), problems);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (mode === 'create') {
    const uuidKey = table.fields.find((field) => field.generated === 'uuid');
    if (uuidKey !== undefined) for (const row of values) if (row[uuidKey.name] === undefined) row[uuidKey.name] = randomUUID();
  }
  return values;
}
