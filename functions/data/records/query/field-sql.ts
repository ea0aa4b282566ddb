// How one field of a table reads in SQL for either storage layout, and how a query-string value is
// parsed for its type. Identifiers come only from the TableDescriptor and are re-checked here;
// values always leave as bound parameters with a cast chosen from a fixed list.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { JSONB_DATA_COLUMN, type FieldDescriptor, type FieldType, type TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { identifier, identifierLiteral, tenantTable } from '#shared/db/sql-identifiers.ts';
import { typeProblem } from '#functions/data/tables/record-checks.ts';

export function tableSql(table: TableDescriptor): SQL {
  return tenantTable({ schemaName: table.schemaName }, table.tableName);
}

/** The alias every compiled statement gives the table. */
export const ROW = sql.raw('t');

const SQL_TYPES: Record<FieldType, string> = {
  string: 'text',
  number: 'double precision',
  integer: 'bigint',
  boolean: 'boolean',
  object: 'jsonb',
  array: 'jsonb',
  date: 'date',
  time: 'time',
  datetime: 'timestamptz',
  year: 'integer',
  yearmonth: 'text',
  duration: 'interval',
  geopoint: 'jsonb',
  geojson: 'jsonb',
  any: 'jsonb',
};

/** The SQL type a field's values are compared and stored as (the flat layout's column type). */
export function sqlType(field: Pick<FieldDescriptor, 'type' | 'format'>): string {
  // Matches the materialization's column types (functions/data/tables/ddl.ts), so comparisons on
  // flat columns need no cast of the column.
  if (field.type === 'string' && field.format === 'uuid') return 'uuid';
  return SQL_TYPES[field.type];
}

export function castTo(field: FieldDescriptor): SQL {
  return sql.raw(`::${sqlType(field)}`);
}

export function isJsonField(field: FieldDescriptor): boolean {
  return SQL_TYPES[field.type] === 'jsonb';
}

export function isKeyField(table: TableDescriptor, field: FieldDescriptor): boolean {
  return table.primaryKey.includes(field.name);
}

/** Whether the field lives in its own column (flat tables, and the key of a jsonb table). */
function ownColumn(table: TableDescriptor, field: FieldDescriptor): boolean {
  return table.provider === 'flat_table' || isKeyField(table, field);
}

/** The field as a typed SQL value: the column itself, or `(t.data->>'f')::type`. */
export function typedValue(table: TableDescriptor, field: FieldDescriptor): SQL {
  if (ownColumn(table, field)) return sql`${ROW}.${identifier(field.name)}`;
  if (isJsonField(field)) return jsonValue(table, field);
  const text = sql`(${ROW}.${identifier(JSONB_DATA_COLUMN)}->>${identifierLiteral(field.name)})`;
  return sqlType(field) === 'text' ? text : sql`${text}${castTo(field)}`;
}

/**
 * A typed value as records answer it, in the standard's lexical form: a datetime in RFC 3339 UTC with
 * `Z`, a duration in ISO 8601 (PostgreSQL would answer `…+00:00` and `1 year 2 mons`). The text is the
 * canonical form temporal-values.ts gives on write, so a value read is accepted unchanged when written
 * back. Other types answer as PostgreSQL's JSON has them.
 */
export function answeredValue(field: Pick<FieldDescriptor, 'type' | 'format'>, value: SQL): SQL {
  if (field.type === 'datetime') return sql`((to_json(${value} at time zone 'UTC') #>> '{}') || 'Z')`;
  if (field.type !== 'duration') return value;
  const part = (unit: string, designator: string) =>
    sql`nullif(extract(${sql.raw(unit)} from ${value}), 0)::bigint || ${sql.raw(`'${designator}'`)}`;
  const time = sql`concat(${part('hour', 'H')}, ${part('minute', 'M')}, trim_scale(nullif(extract(second from ${value}), 0)) || 'S')`;
  return sql`(case when ${value} is null then null else coalesce(nullif(concat('P', ${part('year', 'Y')}, ${part('month', 'M')}, ${part('day', 'D')}, 'T' || nullif(${time}, '')), 'P'), 'PT0S') end)`;
}

/**
 * The field as the text records answer for it, for substring, prefix, suffix and case-insensitive
 * tests, so a filter matches what a client reads (`T10`, `Z`, `PT45H`), never PostgreSQL's own text
 * (`2024-02-17 10:00:00+00`, `1 day 21:00:00`, or a date in the session's DateStyle). A jsonb
 * table's member already is that text: writes store the canonical form records answer.
 */
export function textValue(table: TableDescriptor, field: FieldDescriptor): SQL {
  if (!ownColumn(table, field)) return sql`(${ROW}.${identifier(JSONB_DATA_COLUMN)}->>${identifierLiteral(field.name)})`;
  return answeredText(field, sql`${ROW}.${identifier(field.name)}`);
}

/** A typed value as the text of its answered JSON value (answeredValue). */
function answeredText(field: FieldDescriptor, value: SQL): SQL {
  if (field.type === 'datetime' || field.type === 'duration') return answeredValue(field, value);
  if (sqlType(field) === 'text') return value;
  // JSON writes dates and times in ISO form whatever the DateStyle; `::text` follows the DateStyle.
  if (field.type === 'date' || field.type === 'time') return sql`(to_json(${value}) #>> '{}')`;
  // Numbers, booleans and UUIDs: their text output is their JSON text.
  return sql`${value}::text`;
}

/**
 * The field as jsonb, SQL null when absent or a JSON null: a jsonb table keeps an explicit `null` in
 * `data`, where a flat table's column holds SQL null (record-sql.ts), and the two must read alike for
 * null tests, negations, counts, groups and sorting.
 */
export function jsonValue(table: TableDescriptor, field: FieldDescriptor): SQL {
  if (ownColumn(table, field)) return sql`${ROW}.${identifier(field.name)}`;
  return sql`nullif(${jsonMember(table, field)}, 'null'::jsonb)`;
}

/**
 * The field as jsonb as stored, a JSON null included: the expression a jsonb table's index on the
 * field is built on (tables/ddl.ts), for the operators a JSON null cannot satisfy (containment of a
 * value that is not null, key tests, a property inside the field).
 */
export function jsonMember(table: TableDescriptor, field: FieldDescriptor): SQL {
  if (ownColumn(table, field)) return sql`${ROW}.${identifier(field.name)}`;
  return sql`(${ROW}.${identifier(JSONB_DATA_COLUMN)}->${identifierLiteral(field.name)})`;
}

const BOOLEAN_TEXT: Record<string, string> = { true: 'true', false: 'false', '1': 'true', '0': 'false' };
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function validDate(text: string): boolean {
  const time = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isFinite(time);
}

/**
 * Parses a query-string value for a field's type into the canonical text bound as a parameter, or
 * returns undefined when it is malformed (the caller answers 400 naming the parameter).
 */
export function parseScalar(field: FieldDescriptor, raw: string): string | undefined {
  switch (field.type) {
    case 'number': {
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim())) return undefined;
      const value = Number(raw);
      return Number.isFinite(value) ? String(value) : undefined;
    }
    case 'integer':
    case 'year': {
      // Every bigint, exactly: 19 digits reach past 2^63, so the range is checked on the BigInt.
      if (!/^[+-]?\d{1,19}$/.test(raw.trim())) return undefined;
      const value = BigInt(raw.trim());
      return value >= -(2n ** 63n) && value < 2n ** 63n ? String(value) : undefined;
    }
    case 'boolean':
      return BOOLEAN_TEXT[raw.toLowerCase()];
    case 'date':
      return DATE.test(raw) && validDate(raw) ? raw : undefined;
    case 'time':
      return TIME.test(raw) && validDate(`1970-01-01T${raw}Z`) ? raw : undefined;
    case 'datetime':
      return DATETIME.test(raw) && validDate(raw) ? raw : undefined;
    case 'object':
    case 'array':
    case 'geopoint':
    case 'geojson':
    case 'any':
      try {
        JSON.parse(raw);
        return raw;
      } catch {
        return undefined;
      }
    case 'duration':
      // The record rule, range included: `P99999999999Y` would be PostgreSQL's 22015.
      return typeProblem(field, raw) === undefined ? raw : undefined;
    default:
      if (field.format === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw) ? raw : undefined;
      return raw;
  }
}
