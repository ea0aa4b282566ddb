// One definition of each Table Schema type: whether a JSON value is of a field's type and format, the
// canonical form it is stored and answered in, and the key it orders and compares by. validate_data,
// record writes, constraint values in schemas and the materialized CHECKs (ddl.ts) all go through it.
import type { FieldDescriptor, GeopointFormat, StorageProvider } from './table-descriptor.ts';
import { isDurationText, parseDate, parseDatetime, parseDuration, parseTime, parseYearmonth, type Parsed } from './temporal-values.ts';
import { canonicalGeopoint, containsNul, isBase64, isEmail, isGeojson, isPlainObject, isUri, isUuid } from './value-formats.ts';

export type TypedField = Pick<FieldDescriptor, 'type' | 'format'>;

/** A value of the field's type in its canonical form, or why it is not one. */
export type Cast = { ok: true; value: unknown } | { ok: false; problem: string };

/** PostgreSQL's bigint, the column of `integer` fields. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const TEMPORAL: Partial<Record<FieldDescriptor['type'], (text: string) => Parsed | undefined>> = {
  date: parseDate,
  time: parseTime,
  datetime: parseDatetime,
  yearmonth: parseYearmonth,
  duration: parseDuration,
};

/** What each type expects, for the message of a value that is not of it. */
const EXPECTED: Partial<Record<string, string>> = {
  date: 'a date YYYY-MM-DD (years 0001-9999)',
  time: 'a time HH:MM:SS with optional fractional seconds',
  datetime: 'a datetime YYYY-MM-DDTHH:MM:SS with optional fractional seconds and Z or an offset',
  yearmonth: 'a year and month YYYY-MM',
  duration: 'an ISO 8601 duration such as P1Y2M3DT4H5M6.5S (fractions on seconds only)',
  year: 'a year from 0 to 9999',
  'geopoint:default': 'a geopoint "lon, lat"',
  'geopoint:array': 'a geopoint [lon, lat]',
  'geopoint:object': 'a geopoint {"lon": ..., "lat": ...}',
  geojson: 'a GeoJSON geometry, feature or feature collection (RFC 7946)',
};

function wrong(field: TypedField): Cast {
  const format = field.format !== undefined && field.format !== 'default' ? ` (format ${field.format})` : '';
  const key = field.type === 'geopoint' ? `geopoint:${field.format ?? 'default'}` : field.type;
  const expected = EXPECTED[key];
  return { ok: false, problem: `Expected a value of type ${field.type}${format}${expected === undefined ? '' : `: ${expected}`}.` };
}

const DURATION_RANGE: Cast = {
  ok: false,
  problem: "This duration is out of range: PostgreSQL's interval holds at most 2^31-1 months and days, and 2^63-1 microseconds.",
};

const NUL: Cast = { ok: false, problem: 'The value contains a NUL character (U+0000), which cannot be stored.' };

function castString(field: TypedField, value: string): Cast {
  switch (field.format) {
    case 'email':
      return isEmail(value) ? { ok: true, value } : wrong(field);
    case 'uri':
      return isUri(value) ? { ok: true, value } : wrong(field);
    case 'binary':
      return isBase64(value) ? { ok: true, value } : wrong(field);
    case 'uuid':
      // Lower case, as PostgreSQL's uuid answers it, so a jsonb table's unique index agrees.
      return isUuid(value) ? { ok: true, value: value.toLowerCase() } : wrong(field);
    default:
      return { ok: true, value };
  }
}

function castInteger(value: unknown): Cast | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { ok: true, value };
  // Integers past 2^53 arrive as bigint from the lossless body parser (shared/http/json-body.ts).
  if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) return { ok: true, value };
  return undefined;
}

/** The field's type and format applied to one JSON value (null is handled by the caller). */
export function castValue(field: TypedField, value: unknown): Cast {
  if (containsNul(value)) return NUL;
  const temporal = TEMPORAL[field.type];
  if (temporal !== undefined) {
    const parsed = typeof value === 'string' ? temporal(value) : undefined;
    if (parsed !== undefined) return { ok: true, value: parsed.canonical };
    if (field.type === 'duration' && typeof value === 'string' && isDurationText(value)) return DURATION_RANGE;
    return wrong(field);
  }
  switch (field.type) {
    case 'string':
      return typeof value === 'string' ? castString(field, value) : wrong(field);
    case 'integer':
      return castInteger(value) ?? wrong(field);
    case 'number':
      // A number is a double precision float: a long integer literal (a bigint from the exact parser) is rounded as the column would.
      if (typeof value === 'bigint') return { ok: true, value: Number(value) };
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : wrong(field);
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : wrong(field);
    case 'object':
      return isPlainObject(value) ? { ok: true, value } : wrong(field);
    case 'array':
      return Array.isArray(value) ? { ok: true, value } : wrong(field);
    case 'year':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 9999 ? { ok: true, value } : wrong(field);
    case 'geopoint': {
      const point = canonicalGeopoint((field.format ?? 'default') as GeopointFormat, value);
      return point === undefined ? wrong(field) : { ok: true, value: point };
    }
    case 'geojson':
      return isGeojson(value) ? { ok: true, value } : wrong(field);
    default:
      return { ok: true, value };
  }
}

/** Why `value` is not of the field's type and format, or undefined when it is. */
export function typeProblem(field: TypedField, value: unknown): string | undefined {
  const cast = castValue(field, value);
  return cast.ok ? undefined : cast.problem;
}

/** Types whose values `minimum` and `maximum` bound. */
export const ORDERED_TYPES = new Set<FieldDescriptor['type']>([
  'number',
  'integer',
  'year',
  'date',
  'time',
  'datetime',
  'yearmonth',
  'duration',
]);

/**
 * The order key of a canonical value of an ordered type, comparing as the column type does in
 * PostgreSQL: datetimes as instants, durations as intervals (a month is 30 days), numbers as numbers.
 */
export function orderKey(field: TypedField, canonical: unknown): number | bigint | string {
  if (typeof canonical === 'number' || typeof canonical === 'bigint') return canonical;
  const temporal = TEMPORAL[field.type];
  const parsed = temporal === undefined ? undefined : temporal(String(canonical));
  if (parsed === undefined) throw new Error(`${String(canonical)} is not a canonical ${field.type}`);
  return parsed.key;
}

/** `a < b` for order keys of one type (numbers and bigints mix, as integers above 2^53 may). */
export function compareKeys(a: number | bigint | string, b: number | bigint | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON text with sorted keys and bigints as digits: equal JSON values, equal texts. */
export function canonicalText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalText(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * When two canonical values of a field collide under a unique constraint or primary key, as the
 * table's storage decides: a flat table's typed column compares by type (intervals as PostgreSQL
 * compares them), a jsonb table's unique index compares the stored text.
 */
export function uniqueKey(field: TypedField, provider: StorageProvider, canonical: unknown): string {
  if (provider === 'flat_table' && field.type === 'duration') return String(orderKey(field, canonical));
  if (typeof canonical === 'number' && Object.is(canonical, -0)) return '0';
  return canonicalText(canonical);
}
