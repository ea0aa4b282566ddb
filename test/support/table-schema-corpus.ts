// The project's Table Schema corpus: fields of every type and format with edge and invalid values,
// each constraint, schemas the standard allows or forbids, and batches for uniqueness. The
// differential test runs it through the API and through the official `tableschema` implementation;
// the deliberate differences it may find are listed at the end and shown in the README.

export interface FieldCase {
  id: string;
  /** The field descriptor (its name is always `v`). */
  field: Record<string, unknown>;
  values: unknown[];
}

const t = (type: string, extra: Record<string, unknown> = {}) => ({ name: 'v', type, ...extra });
const NUL = 'a\u0000b';

export const FIELD_CASES: FieldCase[] = [
  { id: 'string', field: t('string'), values: ['', 'plain', 'ünïcödé 🙂', NUL, 12, true, null, ['a'], { a: 1 }] },
  {
    id: 'string-email',
    field: t('string', { format: 'email' }),
    values: [
      'a@example.com',
      'first.last+tag@sub.example.org',
      'a..b@example.com',
      'no-at.example.com',
      'a@b',
      'a b@example.com',
      '.a@example.com',
    ],
  },
  {
    id: 'string-uri',
    field: t('string', { format: 'uri' }),
    values: [
      'https://example.com/a?b=c#d',
      'urn:isbn:0451450523',
      'mailto:a@example.com',
      'https://example.com/a path',
      'not a uri',
      '/relative/path',
      'https://example.com/%zz',
    ],
  },
  {
    id: 'string-binary',
    field: t('string', { format: 'binary' }),
    values: ['', 'aGVsbG8=', 'aGVsbG8gd29ybGQ=', 'not base64!', 'aGVsbG8', 'aGV=sbG8'],
  },
  {
    id: 'string-uuid',
    field: t('string', { format: 'uuid' }),
    values: [
      '0b8e3a6e-4a4e-4c8e-9d6b-2f1f6f0b7a11',
      '0B8E3A6E-4A4E-4C8E-9D6B-2F1F6F0B7A12',
      'not-a-uuid',
      '0b8e3a6e4a4e4c8e9d6b2f1f6f0b7a13',
    ],
  },
  { id: 'number', field: t('number'), values: [0, -1.5, 1e300, 5e-324, '1.5', 'NaN', 'INF', true, null] },
  { id: 'integer', field: t('integer'), values: [0, -7, 9007199254740991, 1.5, '12', '1.0', true, 1e20] },
  { id: 'boolean', field: t('boolean'), values: [true, false, 'true', 'yes', 1, 0] },
  { id: 'object', field: t('object'), values: [{}, { a: [1, { b: null }] }, [], 'text', '{"a":1}', { k: NUL }, { [NUL]: 1 }] },
  { id: 'array', field: t('array'), values: [[], [1, 'a', null, { b: [] }], {}, '[1,2]', [NUL]] },
  {
    id: 'date',
    field: t('date'),
    values: [
      '2024-02-29',
      '2023-02-29',
      '2024-02-30',
      '0001-01-01',
      '0050-06-15',
      '0099-12-31',
      '9999-12-31',
      '0000-01-01',
      '2024-1-1',
      '2024-01-01T00:00:00Z',
      20240101,
    ],
  },
  {
    id: 'time',
    field: t('time'),
    values: ['00:00:00', '23:59:59', '10:30:15.123456', '10:30', '24:00:00', '10:60:00', '10:30:15Z', '10:30:15+02:00', '1:02:03'],
  },
  {
    id: 'datetime',
    field: t('datetime'),
    values: [
      '2024-01-01T10:00:00Z',
      '2024-01-01T10:00:00.5Z',
      '0050-01-01T00:00:00Z',
      '2024-01-01T10:00:00+02:00',
      '2024-01-01T10:00:00-05:30',
      '2024-02-30T10:00:00Z',
      '2024-01-01 10:00:00Z',
      '2024-01-01T10:00Z',
      '2024-01-01T10:00:00',
      '2024-01-01',
      '2024-01-01T25:00:00Z',
    ],
  },
  { id: 'year', field: t('year'), values: [1, 50, 2024, 9999, 0, 10000, '2024', 2024.5] },
  { id: 'yearmonth', field: t('yearmonth'), values: ['2024-01', '0050-12', '2024-13', '2024-00', '2024', '2024-1', [2024, 1]] },
  {
    id: 'duration',
    field: t('duration'),
    values: ['P1Y2M', 'PT36H', 'P1Y2M3DT4H5M6S', 'PT0.5S', 'P2W', 'PT0S', 'P1.5Y', 'P', 'PT', '1 year', 'P99999999999Y', '-P1D', 'P1D2H'],
  },
  { id: 'geopoint', field: t('geopoint'), values: ['90, 45', '-180,-90', '180.5, 0', '0, 91', 'a, b', [90, 45], { lon: 90, lat: 45 }] },
  {
    id: 'geopoint-array',
    field: t('geopoint', { format: 'array' }),
    values: [[90, 45], [0, 0], [181, 0], [1, 2, 3], '90, 45', '[90, 45]', { lon: 90, lat: 45 }],
  },
  {
    id: 'geopoint-object',
    field: t('geopoint', { format: 'object' }),
    values: [{ lon: 90, lat: 45 }, { lon: 0, lat: 95 }, { lon: '90', lat: '45' }, [90, 45], '90, 45', { lon: 1, lat: 2, x: 3 }],
  },
  {
    id: 'geojson',
    field: t('geojson'),
    values: [
      { type: 'Point', coordinates: [102, 0.5] },
      {
        type: 'LineString',
        coordinates: [
          [102, 0],
          [103, 1],
        ],
      },
      {
        type: 'Polygon',
        coordinates: [
          [
            [100, 0],
            [101, 0],
            [101, 1],
            [100, 0],
          ],
        ],
      },
      { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { name: 'x' } },
      { type: 'FeatureCollection', features: [] },
      { type: 'Foo' },
      { type: 'Point' },
      { type: 'Point', coordinates: 'x' },
      {
        type: 'Polygon',
        coordinates: [
          [
            [100, 0],
            [101, 0],
            [101, 1],
            [100, 1],
          ],
        ],
      },
      { type: 'LineString', coordinates: [[102, 0]] },
      'Point',
    ],
  },
  { id: 'any', field: t('any'), values: ['x', 1, null, [1], { a: 1 }, NUL] },
  // Constraints.
  { id: 'required', field: t('string', { constraints: { required: true } }), values: ['x', '', null] },
  { id: 'minimum-number', field: t('number', { constraints: { minimum: 1.5, maximum: 10 } }), values: [1.5, 1.49, 10, 10.01] },
  { id: 'minimum-string-cast', field: t('number', { constraints: { minimum: '1.5' } }), values: [1.5, 1.4] },
  { id: 'minimum-integer', field: t('integer', { constraints: { minimum: -5, maximum: 5 } }), values: [-5, -6, 5, 6] },
  {
    id: 'minimum-date',
    field: t('date', { constraints: { minimum: '2024-01-01', maximum: '2024-12-31' } }),
    values: ['2024-01-01', '2023-12-31', '2024-12-31', '2025-01-01'],
  },
  {
    id: 'minimum-datetime',
    field: t('datetime', { constraints: { minimum: '2024-01-01T00:00:00Z', maximum: '2024-12-31T23:59:59Z' } }),
    values: [
      '2024-01-01T00:00:00Z',
      '2023-12-31T20:00:00-05:00',
      '2024-01-01T03:00:00+05:00',
      '2023-12-31T23:59:59Z',
      '2025-01-01T00:00:00Z',
    ],
  },
  {
    id: 'minimum-time',
    field: t('time', { constraints: { minimum: '09:00:00', maximum: '17:00:00' } }),
    values: ['09:00:00', '08:59:59.5', '17:00:00', '17:00:00.1'],
  },
  { id: 'minimum-yearmonth', field: t('yearmonth', { constraints: { minimum: '2024-03' } }), values: ['2024-03', '2024-02'] },
  { id: 'minimum-year', field: t('year', { constraints: { minimum: 2000, maximum: 2100 } }), values: [2000, 1999, 2100, 2101] },
  {
    id: 'minimum-duration',
    field: t('duration', { constraints: { minimum: 'PT1H', maximum: 'P1D' } }),
    values: ['PT1H', 'PT59M', 'PT24H', 'P1D', 'PT25H'],
  },
  { id: 'length-string', field: t('string', { constraints: { minLength: 2, maxLength: 3 } }), values: ['ab', 'a', 'abc', 'abcd', '🙂🙂'] },
  { id: 'length-array', field: t('array', { constraints: { minLength: 1, maxLength: 2 } }), values: [[1], [], [1, 2], [1, 2, 3]] },
  {
    id: 'length-object',
    field: t('object', { constraints: { minLength: 1, maxLength: 2 } }),
    values: [{ a: 1 }, {}, { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }],
  },
  { id: 'pattern', field: t('string', { constraints: { pattern: '[A-Z]{2}-\\d+' } }), values: ['AB-12', 'ab-12', 'XAB-12', 'AB-12X'] },
  // Patterns: XML Schema regular expressions, matched against the whole value.
  { id: 'pattern-subtraction', field: t('string', { constraints: { pattern: '[a-z-[aeiou]]+' } }), values: ['rhythm', 'rhyme', 'b]'] },
  { id: 'pattern-name-chars', field: t('string', { constraints: { pattern: '\\i\\c*' } }), values: ['xs:name-1', '1x', 'i'] },
  { id: 'pattern-block', field: t('string', { constraints: { pattern: '\\p{IsBasicLatin}+' } }), values: ['plain', 'café'] },
  { id: 'pattern-category', field: t('string', { constraints: { pattern: '\\p{Lu}\\p{Ll}+' } }), values: ['Word', 'word', 'Ωmega'] },
  { id: 'pattern-digits', field: t('string', { constraints: { pattern: '\\d+' } }), values: ['123', '١٢٣', '12a'] },
  { id: 'pattern-word', field: t('string', { constraints: { pattern: '\\w+' } }), values: ['a€b', 'a-b'] },
  { id: 'pattern-space', field: t('string', { constraints: { pattern: 'a\\sb' } }), values: ['a b', 'a\u000bb'] },
  { id: 'pattern-anchored', field: t('string', { constraints: { pattern: '^[A-Z]+$' } }), values: ['ABC', 'ABC1'] },
  { id: 'pattern-empty', field: t('string', { constraints: { pattern: '' } }), values: ['', 'x'] },
  { id: 'enum-string', field: t('string', { constraints: { enum: ['red', 'green'] } }), values: ['red', 'blue', 'Red'] },
  { id: 'enum-integer-cast', field: t('integer', { constraints: { enum: ['1', '2'] } }), values: [1, 2, 3] },
  {
    id: 'enum-datetime',
    field: t('datetime', { constraints: { enum: ['2024-01-01T00:00:00Z'] } }),
    values: ['2024-01-01T00:00:00Z', '2024-01-01T02:00:00+02:00', '2024-01-02T00:00:00Z'],
  },
  // Schemas the standard forbids, or keys Tessera refuses rather than ignore (no values to check).
  { id: 'enum-duplicate', field: t('string', { constraints: { enum: ['a', 'a'] } }), values: [] },
  { id: 'minimum-on-string', field: t('string', { constraints: { minimum: 'a' } }), values: [] },
  { id: 'length-on-number', field: t('number', { constraints: { minLength: 1 } }), values: [] },
  { id: 'pattern-on-integer', field: t('integer', { constraints: { pattern: '\\d+' } }), values: [] },
  { id: 'unknown-type', field: t('text'), values: [] },
  { id: 'pattern-lookahead', field: t('string', { constraints: { pattern: '(?=a)a' } }), values: [] },
  { id: 'pattern-backreference', field: t('string', { constraints: { pattern: '(a)\\1' } }), values: [] },
  { id: 'pattern-named-group', field: t('string', { constraints: { pattern: '(?<year>\\d{4})' } }), values: [] },
  { id: 'pattern-lazy', field: t('string', { constraints: { pattern: 'a+?' } }), values: [] },
  { id: 'pattern-unclosed', field: t('string', { constraints: { pattern: '[' } }), values: [] },
  { id: 'pattern-caret-inside', field: t('string', { constraints: { pattern: 'a^b' } }), values: [] },
  { id: 'pattern-huge-count', field: t('string', { constraints: { pattern: 'a{99999}' } }), values: [] },
  { id: 'true-values', field: t('boolean', { trueValues: ['yes'] }), values: [] },
  { id: 'false-values', field: t('boolean', { falseValues: ['no'] }), values: [] },
  { id: 'bare-number', field: t('number', { bareNumber: false }), values: [] },
  { id: 'decimal-char', field: t('number', { decimalChar: ',' }), values: [] },
  { id: 'group-char', field: t('number', { groupChar: ' ' }), values: [] },
  { id: 'date-format', field: t('date', { format: '%d/%m/%Y' }), values: [] },
  { id: 'date-format-any', field: t('date', { format: 'any' }), values: [] },
  { id: 'geojson-topojson', field: t('geojson', { format: 'topojson' }), values: [] },
  { id: 'string-format-unknown', field: t('string', { format: 'hostname' }), values: [] },
];

/** Batches of rows (table with `id` integer primary key and a unique `code`) for the uniqueness verdicts. */
export interface BatchCase {
  id: string;
  schema: Record<string, unknown>;
  rows: Record<string, unknown>[];
}

const KEYED = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'code', type: 'string', constraints: { unique: true } },
    { name: 'at', type: 'datetime', constraints: { unique: true } },
    { name: 'span', type: 'duration', constraints: { unique: true } },
  ],
  primaryKey: ['id'],
};
const COMPOSITE = {
  fields: [
    { name: 'a', type: 'string' },
    { name: 'b', type: 'integer' },
  ],
  primaryKey: ['a', 'b'],
};

export const BATCH_CASES: BatchCase[] = [
  {
    id: 'distinct',
    schema: KEYED,
    rows: [
      { id: 1, code: 'x' },
      { id: 2, code: 'y' },
    ],
  },
  {
    id: 'primary-key-repeated',
    schema: KEYED,
    rows: [
      { id: 1, code: 'x' },
      { id: 1, code: 'y' },
    ],
  },
  {
    id: 'unique-repeated',
    schema: KEYED,
    rows: [
      { id: 1, code: 'x' },
      { id: 2, code: 'x' },
    ],
  },
  {
    id: 'unique-nulls',
    schema: KEYED,
    rows: [
      { id: 1, code: null },
      { id: 2, code: null },
    ],
  },
  {
    id: 'unique-same-instant',
    schema: KEYED,
    rows: [
      { id: 1, at: '2024-01-01T10:00:00Z' },
      { id: 2, at: '2024-01-01T12:00:00+02:00' },
    ],
  },
  {
    id: 'unique-equal-intervals',
    schema: KEYED,
    rows: [
      { id: 1, span: 'PT36H' },
      { id: 2, span: 'P1DT12H' },
    ],
  },
  {
    id: 'unique-distinct-intervals',
    schema: KEYED,
    rows: [
      { id: 1, span: 'PT1H' },
      { id: 2, span: 'PT2H' },
    ],
  },
  {
    id: 'composite-repeated',
    schema: COMPOSITE,
    rows: [
      { a: 'x', b: 1 },
      { a: 'x', b: 1 },
    ],
  },
  {
    id: 'composite-distinct',
    schema: COMPOSITE,
    rows: [
      { a: 'x', b: 1 },
      { a: 'x', b: 2 },
    ],
  },
  {
    id: 'bad-row-in-batch',
    schema: KEYED,
    rows: [
      { id: 1, code: 'x' },
      { id: 2, at: '2024-02-30T10:00:00Z' },
    ],
  },
];

/**
 * Where Tessera and the `tableschema` implementation (1.12.6) answer differently, on purpose. `case`
 * is a FIELD_CASES id, `value` the value's JSON (absent: the schema itself). The README's Table
 * Schema section shows this table; the differential test fails on any difference not listed here and
 * on any listed one that no longer occurs.
 */
export interface Difference {
  case: string;
  value?: string;
  tessera: 'valid' | 'invalid';
  reason: string;
}

export const DELIBERATE_DIFFERENCES: Difference[] = [
  {
    case: 'any',
    value: '"a\\u0000b"',
    tessera: 'invalid',
    reason: 'PostgreSQL text and jsonb cannot hold U+0000; refused at once rather than failing the write',
  },
  {
    case: 'array',
    value: '"[1,2]"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  {
    case: 'array',
    value: '["a\\u0000b"]',
    tessera: 'invalid',
    reason: 'PostgreSQL text and jsonb cannot hold U+0000; refused at once rather than failing the write',
  },
  {
    case: 'bare-number',
    tessera: 'invalid',
    reason: 'a key about the string form of values in CSV; refused naming the key rather than ignored',
  },
  {
    case: 'boolean',
    value: '"true"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  { case: 'date', value: '"0000-01-01"', tessera: 'invalid', reason: 'PostgreSQL has no year 0 (it would be 1 BC): dates span 0001-9999' },
  {
    case: 'date-format',
    tessera: 'invalid',
    reason: 'formats other than "default" on non-string types (date patterns, "any", topojson) are refused, not ignored',
  },
  {
    case: 'date-format-any',
    tessera: 'invalid',
    reason: 'formats other than "default" on non-string types (date patterns, "any", topojson) are refused, not ignored',
  },
  {
    case: 'datetime',
    value: '"2024-01-01T10:00:00+02:00"',
    tessera: 'valid',
    reason: 'RFC 3339 offsets are accepted and the instant stored in UTC (answered with Z); the oracle takes only …Z',
  },
  {
    case: 'datetime',
    value: '"2024-01-01T10:00:00-05:30"',
    tessera: 'valid',
    reason: 'RFC 3339 offsets are accepted and the instant stored in UTC (answered with Z); the oracle takes only …Z',
  },
  {
    case: 'datetime',
    value: '"2024-01-01T10:00:00.5Z"',
    tessera: 'valid',
    reason: "fractional seconds are accepted (RFC 3339, XML Schema); the oracle's pattern has none",
  },
  {
    case: 'decimal-char',
    tessera: 'invalid',
    reason: 'a key about the string form of values in CSV; refused naming the key rather than ignored',
  },
  {
    case: 'duration',
    value: '"P1.5Y"',
    tessera: 'invalid',
    reason: 'fractions only on seconds, as XML Schema durations have them, so every duration has one exact interval',
  },
  { case: 'duration', value: '"P99999999999Y"', tessera: 'invalid', reason: "beyond PostgreSQL's interval range (178000000 years)" },
  {
    case: 'duration',
    value: '"PT0S"',
    tessera: 'valid',
    reason: 'the zero duration is valid ISO 8601 (and what PostgreSQL answers for it); the oracle refuses a zero moment duration',
  },
  {
    case: 'enum-datetime',
    value: '"2024-01-01T00:00:00Z"',
    tessera: 'valid',
    reason: 'the oracle compares datetime enum members as Date objects by identity, so none ever matches',
  },
  {
    case: 'enum-datetime',
    value: '"2024-01-01T02:00:00+02:00"',
    tessera: 'valid',
    reason:
      'RFC 3339 offsets are accepted and the instant stored in UTC (answered with Z); the oracle takes only …Z; the same instant as the enum member',
  },
  {
    case: 'false-values',
    tessera: 'invalid',
    reason: 'a key about the string form of values in CSV; refused naming the key rather than ignored',
  },
  {
    case: 'geojson',
    value: '{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"x"}}',
    tessera: 'valid',
    reason: 'the oracle refuses every GeoJSON value: its profile refers to a remote JSON Schema that tv4 cannot resolve',
  },
  {
    case: 'geojson',
    value: '{"type":"FeatureCollection","features":[]}',
    tessera: 'valid',
    reason: 'the oracle refuses every GeoJSON value: its profile refers to a remote JSON Schema that tv4 cannot resolve',
  },
  {
    case: 'geojson',
    value: '{"type":"LineString","coordinates":[[102,0],[103,1]]}',
    tessera: 'valid',
    reason: 'the oracle refuses every GeoJSON value: its profile refers to a remote JSON Schema that tv4 cannot resolve',
  },
  {
    case: 'geojson',
    value: '{"type":"Point","coordinates":[102,0.5]}',
    tessera: 'valid',
    reason: 'the oracle refuses every GeoJSON value: its profile refers to a remote JSON Schema that tv4 cannot resolve',
  },
  {
    case: 'geojson',
    value: '{"type":"Polygon","coordinates":[[[100,0],[101,0],[101,1],[100,0]]]}',
    tessera: 'valid',
    reason: 'the oracle refuses every GeoJSON value: its profile refers to a remote JSON Schema that tv4 cannot resolve',
  },
  {
    case: 'geojson-topojson',
    tessera: 'invalid',
    reason: 'formats other than "default" on non-string types (date patterns, "any", topojson) are refused, not ignored',
  },
  {
    case: 'geopoint',
    value: '[90,45]',
    tessera: 'invalid',
    reason: 'one stored form per field: a default-format geopoint is the string "lon, lat" only',
  },
  {
    case: 'geopoint-array',
    value: '"[90, 45]"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  { case: 'geopoint-array', value: '[1,2,3]', tessera: 'invalid', reason: 'a point is exactly [lon, lat]; the oracle drops extra items' },
  {
    case: 'geopoint-object',
    value: '{"lon":"90","lat":"45"}',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  {
    case: 'geopoint-object',
    value: '{"lon":1,"lat":2,"x":3}',
    tessera: 'invalid',
    reason: 'a point is exactly {lon, lat}; the oracle drops extra members',
  },
  {
    case: 'group-char',
    tessera: 'invalid',
    reason: 'a key about the string form of values in CSV; refused naming the key rather than ignored',
  },
  {
    case: 'integer',
    value: '"12"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  {
    case: 'integer',
    value: '100000000000000000000',
    tessera: 'invalid',
    reason: 'integers are PostgreSQL bigints: -2^63 to 2^63-1, exact',
  },
  {
    case: 'length-object',
    value: '{"a":1,"b":2}',
    tessera: 'valid',
    reason: "minLength/maxLength count an object's keys, as the standard says; the oracle reads value.length, undefined on objects",
  },
  {
    case: 'length-object',
    value: '{"a":1}',
    tessera: 'valid',
    reason: "minLength/maxLength count an object's keys, as the standard says; the oracle reads value.length, undefined on objects",
  },
  {
    case: 'length-on-number',
    tessera: 'invalid',
    reason:
      'the standard names the types each constraint applies to; the oracle ignores a constraint on another type, Tessera refuses the schema',
  },
  {
    case: 'length-string',
    value: '"🙂🙂"',
    tessera: 'valid',
    reason: "lengths count characters (as PostgreSQL's char_length), the oracle UTF-16 units",
  },
  {
    case: 'minimum-datetime',
    value: '"2023-12-31T20:00:00-05:00"',
    tessera: 'valid',
    reason:
      'RFC 3339 offsets are accepted and the instant stored in UTC (answered with Z); the oracle takes only …Z; 2024-01-01T01:00:00Z is inside the range',
  },
  {
    case: 'minimum-on-string',
    tessera: 'invalid',
    reason:
      'the standard names the types each constraint applies to; the oracle ignores a constraint on another type, Tessera refuses the schema',
  },
  {
    case: 'number',
    value: '"1.5"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  {
    case: 'number',
    value: '"INF"',
    tessera: 'invalid',
    reason:
      'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast; PostgreSQL would store infinity, JSON cannot answer it',
  },
  {
    case: 'number',
    value: '"NaN"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast; JSON has no NaN',
  },
  {
    case: 'object',
    value: '"{\\"a\\":1}"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  {
    case: 'object',
    value: '{"a\\u0000b":1}',
    tessera: 'invalid',
    reason: 'PostgreSQL text and jsonb cannot hold U+0000; refused at once rather than failing the write',
  },
  {
    case: 'object',
    value: '{"k":"a\\u0000b"}',
    tessera: 'invalid',
    reason: 'PostgreSQL text and jsonb cannot hold U+0000; refused at once rather than failing the write',
  },
  {
    case: 'pattern',
    value: '"AB-12X"',
    tessera: 'invalid',
    reason: 'a pattern matches the whole value, as XML Schema patterns do; the oracle searches for a match anywhere',
  },
  {
    case: 'pattern',
    value: '"XAB-12"',
    tessera: 'invalid',
    reason: 'a pattern matches the whole value, as XML Schema patterns do; the oracle searches for a match anywhere',
  },
  {
    case: 'pattern-subtraction',
    value: '"rhythm"',
    tessera: 'valid',
    reason: "XML Schema class subtraction ([a-z-[aeiou]]); the oracle's JavaScript RegExp reads the class [a-z-[aeiou] followed by ]+",
  },
  {
    case: 'pattern-subtraction',
    value: '"b]"',
    tessera: 'invalid',
    reason: "XML Schema class subtraction ([a-z-[aeiou]]); the oracle's JavaScript RegExp reads the class [a-z-[aeiou] followed by ]+",
  },
  {
    case: 'pattern-name-chars',
    value: '"xs:name-1"',
    tessera: 'valid',
    reason: "XML Schema's \\i and \\c are XML name characters; the oracle's JavaScript RegExp reads the letter i and the text \\c",
  },
  {
    case: 'pattern-name-chars',
    value: '"i"',
    tessera: 'valid',
    reason: "XML Schema's \\i and \\c are XML name characters; the oracle's JavaScript RegExp reads the letter i and the text \\c",
  },
  {
    case: 'pattern-block',
    value: '"plain"',
    tessera: 'valid',
    reason:
      "XML Schema block escapes (\\p{IsBasicLatin}); the oracle's JavaScript RegExp, without the u flag, reads the letters p{IsBasicLatin}",
  },
  {
    case: 'pattern-category',
    value: '"Word"',
    tessera: 'valid',
    reason: "XML Schema category escapes (\\p{Lu}); the oracle's JavaScript RegExp, without the u flag, reads the letters p{Lu}",
  },
  {
    case: 'pattern-category',
    value: '"Ωmega"',
    tessera: 'valid',
    reason: "XML Schema category escapes (\\p{Lu}); the oracle's JavaScript RegExp, without the u flag, reads the letters p{Lu}",
  },
  {
    case: 'pattern-digits',
    value: '"١٢٣"',
    tessera: 'valid',
    reason: "XML Schema's \\d is every Unicode decimal digit (\\p{Nd}); JavaScript's is 0-9",
  },
  {
    case: 'pattern-digits',
    value: '"12a"',
    tessera: 'invalid',
    reason: 'a pattern matches the whole value, as XML Schema patterns do; the oracle searches for a match anywhere',
  },
  {
    case: 'pattern-word',
    value: '"a-b"',
    tessera: 'invalid',
    reason: 'a pattern matches the whole value, as XML Schema patterns do; the oracle searches for a match anywhere',
  },
  {
    case: 'pattern-empty',
    value: '"x"',
    tessera: 'invalid',
    reason:
      'a pattern matches the whole value, as XML Schema patterns do; the oracle searches for a match anywhere; the empty pattern matches the empty value only',
  },
  {
    case: 'pattern-space',
    value: '"a\\u000bb"',
    tessera: 'invalid',
    reason: "XML Schema's \\s is space, tab, CR and LF; JavaScript's also takes vertical tab, form feed and Unicode spaces",
  },
  {
    case: 'pattern-lookahead',
    tessera: 'invalid',
    reason:
      'outside the XML Schema dialect (lookaround): refused naming the construct when the schema is saved; the oracle takes any JavaScript RegExp',
  },
  {
    case: 'pattern-backreference',
    tessera: 'invalid',
    reason:
      'outside the XML Schema dialect (backreferences): refused naming the construct when the schema is saved; the oracle takes any JavaScript RegExp',
  },
  {
    case: 'pattern-named-group',
    tessera: 'invalid',
    reason:
      'outside the XML Schema dialect (named groups): refused naming the construct when the schema is saved; the oracle takes any JavaScript RegExp',
  },
  {
    case: 'pattern-lazy',
    tessera: 'invalid',
    reason:
      'outside the XML Schema dialect (lazy quantifiers): refused naming the construct when the schema is saved; the oracle takes any JavaScript RegExp',
  },
  {
    case: 'pattern-unclosed',
    tessera: 'invalid',
    reason: 'not a regular expression: refused when the schema is saved; the oracle takes the schema and fails on every value',
  },
  {
    case: 'pattern-caret-inside',
    tessera: 'invalid',
    reason:
      'XML Schema reads ^ and $ as characters, other dialects as anchors: Tessera reads a leading ^ and a trailing $ (of the pattern or a top-level alternative) as the redundant anchors their writers meant, so `^[A-Z]+$` keeps working, and refuses them elsewhere as ambiguous (write `\\^` or `[$]` for the characters)',
  },
  {
    case: 'pattern-huge-count',
    tessera: 'invalid',
    reason: "repetition counts above 1000 are refused when the schema is saved (the linear-time engine's limit); the oracle takes them",
  },
  {
    case: 'pattern-on-integer',
    tessera: 'invalid',
    reason:
      'the standard names the types each constraint applies to; the oracle ignores a constraint on another type, Tessera refuses the schema',
  },
  {
    case: 'required',
    value: '""',
    tessera: 'valid',
    reason: 'JSON-native: the empty string is a value; the missing value is null (no missingValues)',
  },
  {
    case: 'string',
    value: '"a\\u0000b"',
    tessera: 'invalid',
    reason: 'PostgreSQL text and jsonb cannot hold U+0000; refused at once rather than failing the write',
  },
  {
    case: 'string-uri',
    value: '"https://example.com/%zz"',
    tessera: 'invalid',
    reason: 'RFC 3986: a % must start a percent-encoded octet',
  },
  {
    case: 'string-uri',
    value: '"mailto:a@example.com"',
    tessera: 'valid',
    reason: 'any RFC 3986 absolute URI; the oracle takes only URLs with an authority',
  },
  {
    case: 'string-uri',
    value: '"urn:isbn:0451450523"',
    tessera: 'valid',
    reason: 'any RFC 3986 absolute URI; the oracle takes only URLs with an authority',
  },
  {
    case: 'time',
    value: '"10:30:15.123456"',
    tessera: 'valid',
    reason: "fractional seconds are accepted (RFC 3339, XML Schema); the oracle's pattern has none",
  },
  {
    case: 'true-values',
    tessera: 'invalid',
    reason: 'a key about the string form of values in CSV; refused naming the key rather than ignored',
  },
  {
    case: 'year',
    value: '"2024"',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
  { case: 'yearmonth', value: '"2024-1"', tessera: 'invalid', reason: 'YYYY-MM with two month digits; the oracle parses leniently' },
  {
    case: 'yearmonth',
    value: '[2024,1]',
    tessera: 'invalid',
    reason: 'JSON-native: a record is JSON, so a value is of its JSON type; the string forms a CSV needs are not cast',
  },
];
