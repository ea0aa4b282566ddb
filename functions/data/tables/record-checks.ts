// Checks records against a compiled table and answers their values in canonical form: types and
// formats (field-types.ts), constraints, enum, and uniqueness within one batch. A pure function over
// the TableDescriptor, shared by `validate_data` and the record endpoints, so both give one verdict.
// Rows already stored and foreign keys need the database: data-validation.ts checks them for
// `validate_data`, the database itself on write.
import { addFieldMessages } from '#shared/errors.ts';
import { patternEngine } from '#shared/text/pattern-engine.ts';
import type { UserPattern } from '#shared/text/user-patterns.ts';
import { castValue, compareKeys, orderKey, uniqueKey, typeProblem } from './field-types.ts';
import { SEARCH_VECTOR_FIELD, type FieldConstraints, type FieldDescriptor, type TableDescriptor } from './table-descriptor.ts';
import { isPlainObject } from './value-formats.ts';

export { typeProblem };

export type RecordErrors = Record<string, string[]>;
export type RecordValues = Record<string, unknown>;

/**
 * Whether `value` matches a Table Schema pattern (XML Schema's dialect; the whole value must match),
 * on the linear-time engine. A stored pattern that engine cannot run (saved before it was the rule) is a problem of
 * the value's field, never a 500.
 */
export function patternProblem(constraints: FieldConstraints, pattern: string, value: string): string | undefined {
  const { compileUserPattern, UserPatternError } = patternEngine();
  let compiled: UserPattern;
  try {
    compiled = compileUserPattern(pattern, { match: 'whole', dialect: constraints.patternDialect ?? 'xsd' });
  } catch (error) {
    if (error instanceof UserPatternError) return `${error.message} Change the field's pattern in the table schema.`;
    throw error;
  }
  return compiled.test(value) ? undefined : `The value does not match the pattern ${pattern}.`;
}

interface Bounds {
  min?: number | bigint | string;
  max?: number | bigint | string;
  /** Enum members by the key they compare equal with. */
  members?: ReadonlySet<string>;
}

/** Order keys of a field's bounds and enum, computed once per compiled field. */
const boundsOf = new WeakMap<FieldConstraints, Bounds>();
function bounds(field: FieldDescriptor, table: TableDescriptor): Bounds {
  let found = boundsOf.get(field.constraints);
  if (found === undefined) {
    const c = field.constraints;
    found = {};
    if (c.minimum !== undefined) found.min = orderKey(field, c.minimum);
    if (c.maximum !== undefined) found.max = orderKey(field, c.maximum);
    if (c.enum !== undefined) found.members = new Set(c.enum.map((member) => uniqueKey(field, storageOf(table, field), member)));
    boundsOf.set(field.constraints, found);
  }
  return found;
}

/** How the field's values compare in storage: typed in a column, or as text inside `data`. */
function storageOf(table: TableDescriptor, field: FieldDescriptor): TableDescriptor['provider'] {
  return table.primaryKey.includes(field.name) ? 'flat_table' : table.provider;
}

const NO_PROBLEMS: readonly string[] = [];

/** Length as the CHECKs count it: characters (not UTF-16 units), items, or an object's keys. */
function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string') return [...value].length;
  if (Array.isArray(value)) return value.length;
  if (isPlainObject(value)) return Object.keys(value).length;
  return undefined;
}

/** Problems of a canonical value with the field's minimum, maximum, lengths, pattern and enum. */
export function constraintProblems(table: TableDescriptor, field: FieldDescriptor, value: unknown): readonly string[] {
  const c = field.constraints;
  if (
    c.minimum === undefined &&
    c.maximum === undefined &&
    c.minLength === undefined &&
    c.maxLength === undefined &&
    c.pattern === undefined &&
    c.enum === undefined
  ) {
    return NO_PROBLEMS;
  }
  const problems: string[] = [];
  const b = bounds(field, table);
  if (b.min !== undefined || b.max !== undefined) {
    const key = orderKey(field, value);
    if (b.min !== undefined && compareKeys(key, b.min) < 0)
      problems.push(`Ensure this value is greater than or equal to ${String(c.minimum)}.`);
    if (b.max !== undefined && compareKeys(key, b.max) > 0)
      problems.push(`Ensure this value is less than or equal to ${String(c.maximum)}.`);
  }
  if (c.minLength !== undefined || c.maxLength !== undefined) {
    const length = lengthOf(value);
    if (length !== undefined && c.minLength !== undefined && length < c.minLength)
      problems.push(`Ensure this value has at least ${c.minLength} characters or items.`);
    if (length !== undefined && c.maxLength !== undefined && length > c.maxLength)
      problems.push(`Ensure this value has at most ${c.maxLength} characters or items.`);
  }
  if (c.pattern !== undefined && typeof value === 'string') {
    const problem = patternProblem(c, c.pattern, value);
    if (problem !== undefined) problems.push(problem);
  }
  if (b.members !== undefined && !b.members.has(uniqueKey(field, storageOf(table, field), value))) {
    problems.push(`The value must be one of: ${c.enum!.map((v) => JSON.stringify(v)).join(', ')}.`);
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

function addProblem(errors: RecordErrors, field: string, message: string): void {
  addFieldMessages(errors, field, message);
}

export interface RecordCheck {
  errors: RecordErrors;
  /** The fields the record gives, in canonical form (what is stored and answered back). */
  values: RecordValues;
}

/**
 * Field errors and canonical values of one record. `partial` (an update) checks only the fields
 * present. A generated key field and a field with a default may be omitted; `search_vector` and
 * unknown fields are refused.
 */
export function checkRecord(table: TableDescriptor, record: unknown, options: { partial?: boolean } = {}): RecordCheck {
  // Keyed by the client's member names (`constructor`, `__proto__`): no prototype to collide with.
  const errors: RecordErrors = Object.create(null) as RecordErrors;
  const values: RecordValues = Object.create(null) as RecordValues;
  if (!isPlainObject(record)) {
    errors.non_field_errors = ['Each record must be a JSON object.'];
    return { errors, values };
  }
  const known = fieldNamesOf(table);
  for (const name of Object.keys(record)) {
    if (name === SEARCH_VECTOR_FIELD && table.search !== undefined)
      addProblem(errors, name, 'This field is computed and cannot be written.');
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
      else values[field.name] = null;
      continue;
    }
    const cast = castValue(field, value);
    if (!cast.ok) {
      addProblem(errors, field.name, cast.problem);
      continue;
    }
    values[field.name] = cast.value;
    for (const message of constraintProblems(table, field, cast.value)) addProblem(errors, field.name, message);
  }
  return { errors, values };
}

export function validateRecord(table: TableDescriptor, record: unknown, options: { partial?: boolean } = {}): RecordErrors {
  return checkRecord(table, record, options).errors;
}

/** The values a create writes: defaults fill the fields a record omits (generated keys stay omitted). */
export function withDefaults(table: TableDescriptor, values: RecordValues): RecordValues {
  if (!table.fields.some((field) => field.default !== undefined && values[field.name] === undefined)) return values;
  const filled: RecordValues = Object.assign(Object.create(null) as RecordValues, values);
  for (const field of table.fields) if (field.default !== undefined && filled[field.name] === undefined) filled[field.name] = field.default;
  return filled;
}

/** A field set that must be unique across rows: the primary key and each unique field. */
function uniqueSets(table: TableDescriptor): FieldDescriptor[][] {
  const sets = [table.primaryKey.map((name) => table.fields.find((f) => f.name === name)!)];
  for (const field of table.fields) {
    if (field.constraints.unique === true && !(table.primaryKey.length === 1 && table.primaryKey[0] === field.name)) sets.push([field]);
  }
  return sets;
}

/**
 * Rows of one batch that repeat an earlier row's primary key or unique value, as the database's
 * unique indexes would refuse them: `{row index: {field: [message]}}`. Rows whose value is missing
 * (generated, defaulted) or null take no part, as in the database.
 */
export function batchDuplicates(table: TableDescriptor, rows: readonly RecordValues[]): Map<number, RecordErrors> {
  const found = new Map<number, RecordErrors>();
  for (const fields of uniqueSets(table)) {
    const firstRow = new Map<string, number>();
    rows.forEach((row, index) => {
      if (fields.some((field) => row[field.name] === undefined || row[field.name] === null)) return;
      const key = fields.map((field) => uniqueKey(field, storageOf(table, field), row[field.name])).join('\u0000');
      const first = firstRow.get(key);
      if (first === undefined) {
        firstRow.set(key, index);
        return;
      }
      const label = fields.length > 1 || table.primaryKey.includes(fields[0]!.name) ? 'the primary key' : 'a unique field';
      const errors = found.get(index) ?? (Object.create(null) as RecordErrors);
      addProblem(
        errors,
        fields.map((field) => field.name).join(','),
        `The value repeats row ${first + 1} of the batch, but this is ${label}.`,
      );
      found.set(index, errors);
    });
  }
  return found;
}

/** Every row's checks: its field errors (batch repeats included) and the values a create would write. */
export function checkRows(table: TableDescriptor, rows: unknown[]): { errors: RecordErrors[]; values: RecordValues[] } {
  const checked = rows.map((row) => checkRecord(table, row));
  const values = checked.map((check) => withDefaults(table, check.values));
  const duplicates = batchDuplicates(table, values);
  const errors = checked.map((check, index) => {
    const all = Object.assign(Object.create(null) as RecordErrors, check.errors);
    for (const [field, messages] of Object.entries(duplicates.get(index) ?? {})) addFieldMessages(all, field, ...messages);
    return all;
  });
  return { errors, values };
}

/** `validate_data`'s answer: one string per problem, naming the row (1-based) and the field. */
export function rowsVerdict(rowErrors: readonly RecordErrors[]): { is_valid: boolean; errors: string[]; validated_rows: number } {
  const errors: string[] = [];
  rowErrors.forEach((all, index) => {
    for (const [field, messages] of Object.entries(all)) {
      for (const message of messages) {
        errors.push(
          message === 'This field is required.'
            ? `Row ${index + 1}: missing required field '${field}'.`
            : `Row ${index + 1}: field '${field}': ${message}`,
        );
      }
    }
  });
  return { is_valid: errors.length === 0, errors, validated_rows: rowErrors.length };
}

/** `validate_data` without the database: the checks of a write before it reaches the table. */
export function validateRows(table: TableDescriptor, rows: unknown[]): { is_valid: boolean; errors: string[]; validated_rows: number } {
  return rowsVerdict(checkRows(table, rows).errors);
}
