// The Table Schema details of issue 13 at the unit level: keys refused by name, constraint values
// cast from strings, the lexical forms and order of temporal values, and exact JSON integers.
import { describe, expect, it } from 'vitest';
import { analyzeTableSchema } from '#functions/data/tables/table-schema.ts';
import { castValue, compareKeys, orderKey } from '#functions/data/tables/field-types.ts';
import { formatInterval, parseInterval } from '#functions/data/tables/temporal-values.ts';
import { parseExactJson, stringifyExactJson } from '#shared/json/exact-json.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

// Schemas compiled here do not come through the repositories, which load the pattern engine on need.
await loadPatternEngine();

const target = { schemaName: 's', tableName: 'app_t', provider: 'flat_table' as const, name: 't' };
const analyze = (field: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  analyzeTableSchema({ fields: [{ name: 'v', ...field }], ...extra }, target);
const problems = (field: Record<string, unknown>, extra?: Record<string, unknown>) => {
  const result = analyze(field, extra);
  return 'problems' in result ? result.problems.join(' | ') : '';
};
const constraintsOf = (field: Record<string, unknown>) => {
  const result = analyze(field);
  if (!('compiled' in result)) throw new Error(JSON.stringify(result.problems));
  return result.compiled.descriptor.fields.find((f) => f.name === 'v')!;
};

describe('schema keys Tessera refuses rather than ignore', () => {
  it.each([
    [{ type: 'boolean', trueValues: ['yes'] }, '"trueValues" is not supported'],
    [{ type: 'boolean', falseValues: 'malformed' }, '"falseValues" is not supported'],
    [{ type: 'number', bareNumber: false }, '"bareNumber" is not supported'],
    [{ type: 'number', decimalChar: ',' }, '"decimalChar" is not supported'],
    [{ type: 'integer', groupChar: ' ' }, '"groupChar" is not supported'],
    [{ type: 'date', format: '%d/%m/%Y' }, 'format "%d/%m/%Y" is not supported on date fields'],
    [{ type: 'datetime', format: 'any' }, 'format "any" is not supported on datetime fields'],
    [{ type: 'geopoint', format: 'wkt' }, 'Valid formats: default, array, object'],
    [{ type: 'string', constraints: { enum: ['a', 'b', 'a'] } }, 'enum lists a value more than once'],
    [{ type: 'integer', constraints: { enum: [1, '1'] } }, 'enum lists a value more than once'],
    [{ type: 'number', constraints: { minimum: 'one' } }, 'minimum "one" is not a valid number value'],
    [{ type: 'datetime', constraints: { minimum: '2024-01-01 00:00' } }, 'is not a valid datetime value'],
  ])('refuses %j naming the key', (field, message) => {
    expect(problems(field)).toContain(message);
  });

  it('refuses missingValues at the top of the schema', () => {
    expect(problems({ type: 'string' }, { missingValues: [''] })).toContain('"missingValues" is not supported');
  });
});

describe('constraint values as the standard allows them', () => {
  it('casts numeric strings and keeps canonical temporal values', () => {
    expect(constraintsOf({ type: 'number', constraints: { minimum: '1.5' } }).constraints.minimum).toBe(1.5);
    expect(constraintsOf({ type: 'integer', constraints: { enum: ['1', '2'] } }).constraints.enum).toEqual([1, 2]);
    expect(constraintsOf({ type: 'datetime', constraints: { minimum: '2024-01-01T02:00:00+02:00' } }).constraints.minimum).toBe(
      '2024-01-01T00:00:00Z',
    );
    expect(constraintsOf({ type: 'duration', constraints: { minimum: 'PT1H', maximum: 'P1D' } }).constraints).toEqual({
      minimum: 'PT1H',
      maximum: 'P1D',
    });
    expect(constraintsOf({ type: 'object', constraints: { minLength: 1, maxLength: 3 } }).constraints).toEqual({
      minLength: 1,
      maxLength: 3,
    });
  });

  it('refuses a duration minimum above its maximum, compared as intervals', () => {
    expect(problems({ type: 'duration', constraints: { minimum: 'P1M', maximum: 'P29D' } })).toContain('minimum is greater than maximum');
    expect(problems({ type: 'duration', constraints: { minimum: 'P1M', maximum: 'P30D' } })).toBe('');
  });
});

describe('temporal values', () => {
  const cast = (type: string, value: unknown) => castValue({ type: type as 'date' }, value);

  it('takes dates in years 0001-0099 as they are', () => {
    expect(cast('date', '0050-02-28')).toEqual({ ok: true, value: '0050-02-28' });
    expect(cast('date', '0004-02-29')).toEqual({ ok: true, value: '0004-02-29' });
    expect(cast('date', '0100-02-29').ok).toBe(false);
  });

  it('stores datetimes in UTC and orders them as instants', () => {
    expect(cast('datetime', '2023-12-31T20:00:00-05:00')).toEqual({ ok: true, value: '2024-01-01T01:00:00Z' });
    expect(cast('datetime', '0001-01-01T00:30:00+01:00').ok).toBe(false);
    const key = (text: string) => orderKey({ type: 'datetime' }, (cast('datetime', text) as { value: string }).value);
    expect(compareKeys(key('2024-01-01T10:00:00.5Z'), key('2024-01-01T10:00:00Z'))).toBe(1);
  });

  it('writes intervals in the ISO 8601 form PostgreSQL answers, within its range', () => {
    expect(formatInterval(parseInterval('P1Y14M3W2DT36H0.250S')!)).toBe('P2Y2M23DT36H0.25S');
    expect(formatInterval(parseInterval('PT0S')!)).toBe('PT0S');
    expect(parseInterval('P178956970Y7M')).toBeDefined();
    expect(parseInterval('P178956970Y8M')).toBeUndefined();
    expect(parseInterval('P1.5Y')).toBeUndefined();
  });
});

describe('exact JSON integers', () => {
  it('parses integers past 2^53 as bigints and writes them back as digits', () => {
    const text = '{"a":9007199254740993,"b":[-9223372036854775808,1.5e+300,12],"s":"9007199254740993"}';
    const parsed = parseExactJson(text) as { a: bigint; b: unknown[]; s: string };
    expect(parsed).toEqual({ a: 9007199254740993n, b: [-9223372036854775808n, 1.5e300, 12], s: '9007199254740993' });
    expect(stringifyExactJson(parsed)).toBe(text);
  });

  it('cannot be fooled by a string that escapes U+0000', () => {
    expect(parseExactJson('["\\u00009007199254740993", 9007199254740993]')).toEqual(['\u00009007199254740993', 9007199254740992]);
  });

  it('finds a big integer among long digit runs inside strings, and only outside them', () => {
    const text = '{"code":"12345678901234567890","n":-12345678901234567890,"small":1234567890123456,"f":12345678901234567.5}';
    expect(parseExactJson(text)).toEqual({
      code: '12345678901234567890',
      n: -12345678901234567890n,
      small: 1234567890123456,
      f: Number('12345678901234567.5'),
    });
    expect(parseExactJson('{"code":"12345678901234567890"}')).toEqual({ code: '12345678901234567890' });
  });

  it('writes values without bigints as JSON.stringify does, and still refuses a cycle', () => {
    const value = { a: [1, 'two', null, { b: 2.5 }], c: new Date(0) };
    expect(stringifyExactJson(value)).toBe(JSON.stringify(value));
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => stringifyExactJson(cycle)).toThrow(TypeError);
    expect(stringifyExactJson({ deep: [{ n: 2n ** 64n }] })).toBe('{"deep":[{"n":18446744073709551616}]}');
  });

  it('keeps prototype keys as plain data', () => {
    const parsed = parseExactJson('{"__proto__": {"polluted": 12345678901234567890}}') as Record<string, unknown>;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
