import { describe, expect, it } from 'vitest';
import { typeProblem, validateRecord, validateRows } from '#functions/data/tables/record-checks.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { analyzeTableSchema } from '#functions/data/tables/table-schema.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

// Schemas compiled here do not come through the repositories, which load the pattern engine on need.
await loadPatternEngine();

function descriptor(schema: unknown): TableDescriptor {
  const result = analyzeTableSchema(schema, { schemaName: 's', tableName: 'crm_contacts', provider: 'flat_table' });
  if ('problems' in result) throw new Error(result.problems.join(' | '));
  return result.compiled.descriptor;
}

const CONTACTS = descriptor({
  fields: [
    { name: 'id', type: 'string', format: 'uuid' },
    { name: 'name', type: 'string', constraints: { required: true, minLength: 2, maxLength: 5, pattern: '[A-Z][a-z]*' } },
    { name: 'email', type: 'string', format: 'email', constraints: { unique: true } },
    { name: 'age', type: 'integer', constraints: { minimum: 0, maximum: 150 } },
    { name: 'status', type: 'string', constraints: { enum: ['active', 'gone'] } },
    { name: 'tags', type: 'array', constraints: { minLength: 1, maxLength: 2 } },
    { name: 'born', type: 'date', constraints: { minimum: '1900-01-01', maximum: '2030-12-31' } },
    { name: 'level', type: 'integer', default: 1 },
    { name: 'search_vector', type: 'string', 'x-source-fields': ['name'] },
  ],
  primaryKey: ['id'],
});
const check = (record: unknown, options?: { partial?: boolean }) => validateRecord(CONTACTS, record, options);

describe('required fields', () => {
  it('accepts a record with only the required field, leaving generated key and default out', () => {
    expect(check({ name: 'Ada' })).toEqual({});
  });

  it('reports a missing required field', () => {
    expect(check({ age: 3 })).toEqual({ name: ['This field is required.'] });
  });

  it('refuses null in a required field and accepts it in an optional one', () => {
    expect(check({ name: null, age: null })).toEqual({ name: ['This field may not be null.'] });
  });

  it('refuses null in a key field even without required', () => {
    expect(check({ id: null, name: 'Ada' })).toEqual({ id: ['This field may not be null.'] });
  });

  it('checks only the present fields of a partial update', () => {
    expect(check({ age: 3 }, { partial: true })).toEqual({});
    expect(check({ age: -3 }, { partial: true })).toEqual({ age: ['Ensure this value is greater than or equal to 0.'] });
  });
});

describe('unknown and computed fields', () => {
  it('refuses a field the schema does not declare', () => {
    expect(check({ name: 'Ada', nickname: 'A' })).toEqual({ nickname: ['Unknown field.'] });
  });

  it('refuses writing the computed search_vector', () => {
    expect(check({ name: 'Ada', search_vector: 'x' })).toEqual({ search_vector: ['This field is computed and cannot be written.'] });
  });

  it('refuses a record that is not an object', () => {
    expect(check([{ name: 'Ada' }])).toEqual({ non_field_errors: ['Each record must be a JSON object.'] });
    expect(check('Ada')).toEqual({ non_field_errors: ['Each record must be a JSON object.'] });
  });
});

describe('types and formats', () => {
  it.each([
    ['string', undefined, 'x', 1],
    ['string', 'email', 'a@b.co', 'not-an-email'],
    ['string', 'uuid', '7d0c2f5e-9b1a-4c3e-8f2d-1a2b3c4d5e6f', '7d0c2f5e-9b1a'],
    ['string', 'uri', 'https://example.com/x', 'not a uri'],
    ['integer', undefined, 3, 3.5],
    ['integer', undefined, -7, '3'],
    ['integer', undefined, 0, 2 ** 53],
    ['number', undefined, 3.5, '3.5'],
    ['boolean', undefined, false, 'false'],
    ['object', undefined, { a: 1 }, [1]],
    ['array', undefined, [1], { 0: 1 }],
    ['date', undefined, '2024-02-29', '2023-02-29'],
    ['time', undefined, '23:59:59', '24:00'],
    ['datetime', undefined, '2024-01-02T03:04:05Z', '2024-01-02'],
    ['year', undefined, 2024, 10000],
    ['yearmonth', undefined, '2024-12', '2024-13'],
    ['duration', undefined, 'P1DT2H', 'P'],
    ['geopoint', undefined, '12.5, 41.9', [200, 0]],
    ['geojson', undefined, { type: 'Point', coordinates: [0, 0] }, { coordinates: [0, 0] }],
  ])('%s (%s) accepts %j and refuses %j', (type, format, good, bad) => {
    const field = { type, format } as Parameters<typeof typeProblem>[0];

    expect(typeProblem(field, good)).toBeUndefined();
    expect(typeProblem(field, bad)).toMatch(new RegExp(`^Expected a value of type ${type}`));
  });

  it('names the format in the type message', () => {
    expect(check({ name: 'Ada', email: 'nope' })).toEqual({ email: ['Expected a value of type string (format email).'] });
  });

  it('accepts anything in an any field', () => {
    expect(typeProblem({ type: 'any' }, [{ deep: null }])).toBeUndefined();
  });

  it('reports the type and skips the constraints of a mistyped value', () => {
    expect(check({ name: 'Ada', age: 'old' })).toEqual({ age: ['Expected a value of type integer.'] });
  });
});

describe('constraints', () => {
  it.each([
    ['minimum', { age: -1 }, 'age', 'Ensure this value is greater than or equal to 0.'],
    ['maximum', { age: 151 }, 'age', 'Ensure this value is less than or equal to 150.'],
    ['minimum of a date', { born: '1899-12-31' }, 'born', 'Ensure this value is greater than or equal to 1900-01-01.'],
    ['maximum of a date', { born: '2031-01-01' }, 'born', 'Ensure this value is less than or equal to 2030-12-31.'],
    ['minLength of a string', { name: 'A' }, 'name', 'Ensure this value has at least 2 characters or items.'],
    ['maxLength of a string', { name: 'Adaaaa' }, 'name', 'Ensure this value has at most 5 characters or items.'],
    ['minLength of an array', { tags: [] }, 'tags', 'Ensure this value has at least 1 characters or items.'],
    ['maxLength of an array', { tags: [1, 2, 3] }, 'tags', 'Ensure this value has at most 2 characters or items.'],
    ['pattern, anchored at both ends', { name: 'Ada1' }, 'name', 'The value does not match the pattern [A-Z][a-z]*.'],
    ['enum', { status: 'Active' }, 'status', 'The value must be one of: "active", "gone".'],
  ])('reports %s', (_label, values, field, message) => {
    const errors = check({ name: 'Ada', ...values });

    expect(errors).toEqual({ [field]: expect.arrayContaining([message]) });
  });

  it('accepts the bounds themselves', () => {
    expect(check({ name: 'Ab', age: 0, born: '1900-01-01', tags: [1, 2], status: 'gone' })).toEqual({});
    expect(check({ name: 'Abcde', age: 150, born: '2030-12-31', tags: [1] })).toEqual({});
  });

  it('counts characters, not UTF-16 units', () => {
    // Five code points, eight UTF-16 units: within maxLength 5.
    expect(check({ name: 'Ab😀😀😀' }).name).toEqual(['The value does not match the pattern [A-Z][a-z]*.']);
  });

  it('matches a pattern against the whole value', () => {
    expect(check({ name: 'xAda' })).toEqual({ name: ['The value does not match the pattern [A-Z][a-z]*.'] });
  });

  it('reports every broken constraint of one value', () => {
    expect(check({ name: 'abcdefg' }).name).toEqual([
      'Ensure this value has at most 5 characters or items.',
      'The value does not match the pattern [A-Z][a-z]*.',
    ]);
  });

  it('does not check uniqueness, which needs the database', () => {
    expect(check({ name: 'Ada', email: 'same@example.com' })).toEqual({});
  });
});

describe('validate_data rows', () => {
  it('numbers rows from 1 and names the field of each problem', () => {
    const result = validateRows(CONTACTS, [{ name: 'Ada' }, { age: -1 }, 7]);

    expect(result.is_valid).toBe(false);
    expect(result.validated_rows).toBe(3);
    expect(result.errors.slice(0, 2)).toEqual([
      "Row 2: missing required field 'name'.",
      "Row 2: field 'age': Ensure this value is greater than or equal to 0.",
    ]);
    expect(result.errors).toHaveLength(3);
    expect(result.errors[2]).toMatch(/^Row 3: .*JSON object/);
  });

  it('answers valid for good rows and for no rows', () => {
    expect(validateRows(CONTACTS, [{ name: 'Ada' }, { name: 'Alan', age: 41 }])).toEqual({ is_valid: true, errors: [], validated_rows: 2 });
    expect(validateRows(CONTACTS, [])).toEqual({ is_valid: true, errors: [], validated_rows: 0 });
  });
});
