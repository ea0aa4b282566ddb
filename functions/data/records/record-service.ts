// The record operations of one materialized table (lists are record-list.ts): detail,
// create (single and bulk), upsert, patch (single and bulk) and delete (one, by ids, by filter).
// Validation happens before any write; database unique and foreign-key violations come back in the
// same `Validation failed` shape, naming the field.
import type { SQL } from 'drizzle-orm';
import type { Queryable, Row } from '#shared/db/database.ts';
import { CheckViolationError, ForeignKeyViolationError, UniqueViolationError } from '#shared/db/database-errors.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { JsonText, reply, type HttpReply } from '#shared/http/reply.ts';
import { jsonNestingDepth, MAX_JSON_DEPTH } from '#shared/http/json-body.ts';
import type { FieldDescriptor, TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { castValue } from '#functions/data/tables/field-types.ts';
import { parseScalar } from './query/field-sql.ts';
import { whereSql } from './query/compile.ts';
import { parseFilters } from './query/list-query.ts';
import { queryError } from './query/query-error.ts';
import {
  deleteWhereSql,
  detailSql,
  insertAsJsonSql,
  insertSql,
  keyFields,
  keyInSql,
  keyEquals,
  updateSql,
  upsertSql,
} from './record-sql.ts';
import { newRecordValues, validateRecords, validationFailed, type RecordValues } from './record-preparation.ts';

export type DataRecord = Record<string, unknown>;

function json(value: unknown): DataRecord {
  return (typeof value === 'string' ? parseExactJson(value) : value) as DataRecord;
}

function recordsOf(rows: Row[]): DataRecord[] {
  return rows.map((row) => json(row.record));
}

function notFound(table: TableDescriptor, id: string): NotFoundError {
  return new NotFoundError('Not found', { extras: { detail: `No record with ${table.primaryKey[0]} "${id}" in ${table.tableName}.` } });
}

/** Unique and foreign-key violations become field errors, the field read from the constraint. */
async function mappingConstraints<T>(table: TableDescriptor, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueViolationError || error instanceof ForeignKeyViolationError) {
      const field = fieldOfConstraint(table, error.constraint);
      const message =
        error instanceof UniqueViolationError ? 'A record with this value already exists.' : 'The referenced record does not exist.';
      throw validationFailed({ [field]: [message] });
    }
    if (error instanceof CheckViolationError)
      throw validationFailed({ [fieldOfConstraint(table, error.constraint)]: [`${error.message}.`] });
    if (error instanceof ValidationError && error.message !== 'Validation failed') {
      throw validationFailed(error.fieldErrors ?? { non_field_errors: [error.message] });
    }
    throw error;
  }
}

/**
 * A delete that a foreign key blocks (RESTRICT's 23001, NO ACTION's 23503) is a conflict with the
 * records still referencing this one, not a bad value: 409 naming the constraint and its table.
 */
async function mappingDeleteConstraints<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ForeignKeyViolationError)) throw error;
    const where = error.table === undefined ? '' : ` of table "${error.table}"`;
    throw new ConflictError(
      `Records${where} still reference this record (constraint "${error.constraint ?? 'unknown'}"); delete or change them first.`,
      {
        cause: error,
        extras: {
          detail: 'The record is referenced by other records.',
          constraint: error.constraint ?? null,
          referenced_by: error.table ?? null,
        },
      },
    );
  }
}

function fieldOfConstraint(table: TableDescriptor, constraint: string | undefined): string {
  if (constraint === undefined) return 'non_field_errors';
  if (constraint === `${table.tableName}_pkey`) return table.primaryKey.join(',');
  const named = table.fields
    .map((field) => field.name)
    .filter((name) => constraint.includes(name))
    .sort((a, b) => b.length - a.length);
  return named[0] ?? 'non_field_errors';
}

function singleKey(table: TableDescriptor): FieldDescriptor {
  const keys = keyFields(table);
  if (keys.length !== 1) throw new ValidationError('This table has a composite primary key; address records with filters instead.');
  return keys[0]!;
}

/** The key as bound text, or a 404 when it cannot even be a key of this table. */
export function keyText(table: TableDescriptor, id: string): string {
  const parsed = parseScalar(singleKey(table), id);
  if (parsed === undefined) throw notFound(table, id);
  return parsed;
}

/** A record by its key; a key that cannot be one of this table is a 404. */
export async function readRecord(db: Queryable, table: TableDescriptor, id: string): Promise<DataRecord> {
  return recordOrNotFound(table, id, await db.rows(detailSql(table, keyText(table, id))));
}

export function recordOrNotFound(table: TableDescriptor, id: string, rows: Row[]): DataRecord {
  const [row] = rows;
  if (!row) throw notFound(table, id);
  return json(row.record);
}

function prepared(table: TableDescriptor, body: unknown[], indexed: boolean): RecordValues[] {
  const rows = validateRecords(table, body, 'create', indexed);
  const identity = table.fields.find((field) => field.generated === 'identity');
  if (identity && rows.some((row) => row[identity.name] === undefined) && rows.some((row) => row[identity.name] !== undefined)) {
    throw validationFailed({ [identity.name]: ['Give the key on every record of the batch or on none.'] });
  }
  return rows;
}

/** Creates one record or, for an array, all of them in one statement (all or nothing). */
export async function createRecords(db: Queryable, table: TableDescriptor, body: unknown): Promise<DataRecord | DataRecord[]> {
  const many = Array.isArray(body);
  const items = many ? body : [body];
  if (items.length === 0) return [];
  const rows = prepared(table, items, many);
  const created = recordsOf(await mappingConstraints(table, () => db.rows(insertSql(table, rows))));
  return many ? created : created[0]!;
}

/**
 * Creates the records of an array in one statement (all or nothing), as createRecords does, and
 * answers them as JSON text made by the database: a batch of thousands is never parsed into objects
 * here only to be serialized again.
 */
export async function createRecordsAsJson(db: Queryable, table: TableDescriptor, items: unknown[]): Promise<string> {
  if (items.length === 0) return '[]';
  const rows = prepared(table, items, true);
  const [row] = await mappingConstraints(table, () => db.rows<{ records: string }>(insertAsJsonSql(table, rows)));
  return row!.records;
}

/** POST's answer: `{data}` for one record; for an array, the records as JSON text made by the database. */
export async function createAnswer(
  db: Queryable,
  table: TableDescriptor,
  body: unknown,
): Promise<{ data: DataRecord | DataRecord[] } | JsonText> {
  if (!Array.isArray(body)) return { data: await createRecords(db, table, body) };
  return new JsonText(`{"data":${await createRecordsAsJson(db, table, body)}}`);
}

/** An upsert's answer: 201 when a record was inserted, else 200; an array also counts both kinds. */
export async function upsertAnswer(
  db: Queryable,
  table: TableDescriptor,
  body: unknown,
  uniqueFields: string | undefined,
): Promise<HttpReply> {
  const result = await upsertRecords(db, table, body, uniqueFields);
  const answer = Array.isArray(result.data)
    ? { data: result.data, created: result.created, updated: result.updated }
    : { data: result.data, created: result.created };
  return reply(result.anyInserted ? 201 : 200, answer);
}

export interface UpsertResult {
  data: DataRecord | DataRecord[];
  created: boolean | number;
  updated?: number;
  anyInserted: boolean;
}

function conflictFields(table: TableDescriptor, uniqueFields: string | undefined): FieldDescriptor[] {
  if (uniqueFields === undefined || uniqueFields.trim() === '') throw queryError('unique_fields', 'is required');
  const names = uniqueFields.split(',').map((name) => name.trim());
  const fields = names.map((name) => {
    const field = table.fields.find((candidate) => candidate.name === name);
    if (!field) throw queryError('unique_fields', `unknown field "${name}"`);
    return field;
  });
  const isKey = names.length === table.primaryKey.length && names.every((name) => table.primaryKey.includes(name));
  const isUnique = fields.length === 1 && fields[0]!.constraints.unique === true;
  if (!isKey && !isUnique) throw queryError('unique_fields', 'must be the primary key or a field with a unique constraint');
  return fields;
}

export async function upsertRecords(
  db: Queryable,
  table: TableDescriptor,
  body: unknown,
  uniqueFields: string | undefined,
): Promise<UpsertResult> {
  const fields = conflictFields(table, uniqueFields);
  const many = Array.isArray(body);
  const items = many ? body : [body];
  if (items.length === 0) return { data: [], created: 0, updated: 0, anyInserted: false };
  const rows = prepared(table, items, many);
  const missing = fields.filter((field) => rows.some((row) => row[field.name] === undefined || row[field.name] === null));
  if (missing.length > 0)
    throw validationFailed(Object.fromEntries(missing.map((field) => [field.name, ['Upsert needs this field on every record.']])));
  const result = await mappingConstraints(table, () =>
    db.rows(upsertSql(table, rows, fields, new Set(items.flatMap((item) => (item && typeof item === 'object' ? Object.keys(item) : []))))),
  );
  const inserted = result.filter((row) => row.inserted === true || row.inserted === 't').length;
  if (!many) return { data: json(result[0]!.record), created: inserted === 1, anyInserted: inserted === 1 };
  return { data: recordsOf(result), created: inserted, updated: result.length - inserted, anyInserted: inserted > 0 };
}

/** An integer key's text as the number it is, exactly (a bigint past 2^53). */
function exactInteger(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

export async function patchRecord(db: Queryable, table: TableDescriptor, id: string, body: unknown): Promise<DataRecord> {
  const key = singleKey(table);
  const keyValue = keyText(table, id);
  const [values] = validateRecords(table, [body], 'patch', false);
  // Compared in canonical form: a uuid key may be written in either case.
  const canonicalKey = castValue(key, key.type === 'integer' ? exactInteger(keyValue) : keyValue);
  if (values![key.name] !== undefined && canonicalKey.ok && String(values![key.name]) !== String(canonicalKey.value)) {
    throw validationFailed({ [key.name]: ['The key cannot be changed.'] });
  }
  const row = Object.assign(newRecordValues(), values, { [key.name]: key.type === 'integer' ? exactInteger(keyValue) : keyValue });
  const [updated] = await mappingConstraints(table, () => db.rows(updateSql(table, [row])));
  if (!updated) throw notFound(table, id);
  return json(updated.record);
}

/** PATCH of an array: each element names its record by key; all or nothing. */
export async function patchRecords(db: Queryable, table: TableDescriptor, body: unknown): Promise<DataRecord[]> {
  if (!Array.isArray(body)) throw validationFailed({ non_field_errors: ['Expected an array of records, each with its key.'] });
  const rows = validateRecords(table, body, 'patch', true);
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const key = table.primaryKey.map((name) => JSON.stringify(row[name] ?? null)).join('|');
    if (table.primaryKey.some((name) => row[name] === undefined))
      errors[`${index}.${table.primaryKey[0]}`] = ['Each record needs its key.'];
    else if (seen.has(key)) errors[`${index}.${table.primaryKey[0]}`] = ['This record appears twice in the batch.'];
    seen.add(key);
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return db.transaction(async (tx) => {
    const updated = recordsOf(await mappingConstraints(table, () => tx.rows(updateSql(table, rows))));
    if (updated.length !== rows.length) {
      const found = new Set(updated.map((record) => table.primaryKey.map((name) => JSON.stringify(record[name] ?? null)).join('|')));
      const missing = rows.filter((row) => !found.has(table.primaryKey.map((name) => JSON.stringify(row[name] ?? null)).join('|')));
      throw new NotFoundError('Not found', {
        extras: {
          detail: `No records with keys ${missing.map((row) => JSON.stringify(table.primaryKey.map((name) => row[name]))).join(', ')}.`,
        },
      });
    }
    return updated;
  });
}

export async function deleteRecord(db: Queryable, table: TableDescriptor, id: string): Promise<void> {
  const deleted = await mappingDeleteConstraints(() => db.rows(deleteWhereSql(table, keyEquals(table, keyText(table, id)))));
  if (deleted.length === 0) throw notFound(table, id);
}

export async function deleteRecordsByIds(db: Queryable, table: TableDescriptor, ids: string): Promise<{ deleted: number; ids: string[] }> {
  const key = singleKey(table);
  const list = ids.split(',').map((id) => id.trim());
  if (list.some((id) => id === '')) throw queryError('ids', 'expects a comma-separated list of keys');
  const parsed = list.map((id) => {
    const value = parseScalar(key, id);
    if (value === undefined) throw queryError('ids', `"${id}" is not a valid ${key.type}`);
    return value;
  });
  const rows = await mappingDeleteConstraints(() => db.rows(deleteWhereSql(table, keyInSql(table, parsed))));
  return { deleted: rows.length, ids: rows.map((row) => String(row.id)) };
}

export async function deleteRecordsByFilter(db: Queryable, table: TableDescriptor, filter: string): Promise<{ deleted: number }> {
  // Behind the depth limit: a nested value is serialised again below, recursively.
  if (jsonNestingDepth(filter, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw queryError('filter', `is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(filter);
  } catch {
    throw queryError('filter', 'expects a JSON object of filters');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw queryError('filter', 'expects a JSON object of filters');
  const entries = Object.entries(parsed as Record<string, unknown>).map(([key, value]): [string, string] => [
    key,
    Array.isArray(value)
      ? value.map(String).join(',')
      : typeof value === 'object' && value !== null
        ? JSON.stringify(value)
        : String(value),
  ]);
  if (entries.length === 0) throw queryError('filter', 'an empty filter would delete every record; give at least one condition');
  const where: SQL = whereSql(table, parseFilters(table, entries), 'include');
  const rows = await mappingDeleteConstraints(() => db.rows(deleteWhereSql(table, where)));
  return { deleted: rows.length };
}
