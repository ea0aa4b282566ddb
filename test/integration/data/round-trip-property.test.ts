// Must show: for every type, any value the API answers is accepted unchanged by PATCH and by
// validate_data, and is answered the same again (fast-check generators per type, both layouts).
// Bodies travel with exact integers both ways, so bigints past 2^53 are compared digit for digit.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExactJson, stringifyExactJson } from '#shared/json/exact-json.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

type Body = any; // `any`: answers are read field by field

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const digits = fc.integer({ min: 0, max: 999_999 }).map((n) => pad(n, 6).replace(/0+$/, ''));
const fractionText = fc
  .option(
    digits.filter((d) => d !== ''),
    { nil: undefined },
  )
  .map((d) => (d === undefined ? '' : `.${d}`));
const dateText = fc
  .date({ min: new Date('0002-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const timeText = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }), fractionText)
  .map(([h, m, s, f]) => `${pad(h)}:${pad(m)}:${pad(s)}${f}`);
const offset = fc.oneof(
  fc.constant('Z'),
  fc
    .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 30, 45))
    .map(([sign, h, m]) => `${sign}${pad(h)}:${pad(m)}`),
);
const noNul = (value: unknown) => !JSON.stringify(value).includes('\\u0000');
const json = fc
  .jsonValue({ maxDepth: 3 })
  .filter(noNul)
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const lon = fc.double({ min: -180, max: 180, noNaN: true }).map((n) => (Object.is(n, -0) ? 0 : n));
const lat = fc.double({ min: -90, max: 90, noNaN: true }).map((n) => (Object.is(n, -0) ? 0 : n));

/** A field per type (and geopoint format) with a generator of its valid values. */
const TYPES: Array<[string, Record<string, unknown>, fc.Arbitrary<unknown>]> = [
  ['string', { type: 'string' }, fc.string({ unit: 'grapheme' }).filter(noNul)],
  ['uuid', { type: 'string', format: 'uuid' }, fc.uuid().map((u) => u.toUpperCase())],
  ['integer', { type: 'integer' }, fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))],
  ['number', { type: 'number' }, fc.double({ noNaN: true, noDefaultInfinity: true })],
  ['boolean', { type: 'boolean' }, fc.boolean()],
  ['object', { type: 'object' }, fc.dictionary(fc.string().filter(noNul), json)],
  ['array', { type: 'array' }, fc.array(json, { maxLength: 4 })],
  ['any', { type: 'any' }, json.filter((value) => value !== null)],
  [
    'date',
    { type: 'date' },
    fc.oneof(
      dateText,
      fc.integer({ min: 1, max: 99 }).map((y) => `${pad(y, 4)}-02-28`),
    ),
  ],
  ['time', { type: 'time' }, timeText],
  ['datetime', { type: 'datetime' }, fc.tuple(dateText, timeText, offset).map(([d, t, o]) => `${d}T${t}${o}`)],
  ['year', { type: 'year' }, fc.integer({ min: 0, max: 9999 })],
  [
    'yearmonth',
    { type: 'yearmonth' },
    fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${pad(y, 4)}-${pad(m)}`),
  ],
  [
    'duration',
    { type: 'duration' },
    fc
      .tuple(...[0, 1, 2, 3, 4, 5].map(() => fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined })), fractionText)
      .map(([y, mo, d, h, mi, s, f]) => {
        const date = `${y === undefined ? '' : `${y}Y`}${mo === undefined ? '' : `${mo}M`}${d === undefined ? '' : `${d}D`}`;
        const time = `${h === undefined ? '' : `${h}H`}${mi === undefined ? '' : `${mi}M`}${s === undefined ? '' : `${s}${f}S`}`;
        return date === '' && time === '' ? 'PT0S' : `P${date}${time === '' ? '' : `T${time}`}`;
      }),
  ],
  ['geopoint', { type: 'geopoint' }, fc.tuple(lon, lat).map(([x, y]) => `${x},${y}`)],
  ['geopoint-array', { type: 'geopoint', format: 'array' }, fc.tuple(lon, lat)],
  ['geopoint-object', { type: 'geopoint', format: 'object' }, fc.tuple(lon, lat).map(([x, y]) => ({ lon: x, lat: y }))],
  [
    'geojson',
    { type: 'geojson' },
    fc.oneof(
      fc.tuple(lon, lat).map((p) => ({ type: 'Point', coordinates: p })),
      fc.array(fc.tuple(lon, lat), { minLength: 2, maxLength: 4 }).map((line) => ({ type: 'LineString', coordinates: line })),
    ),
  ],
];

describe.each(['flat_table', 'jsonb'])('values answered by %s tables go back unchanged', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;

  /** A request whose body and answer keep integers past 2^53 exact. */
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...tenant },
      body: body === undefined ? undefined : stringifyExactJson(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : parseExactJson(text) };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Round Trip Site')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Trips' })).status).toBe(201);
    expect((await call('POST', '/api/apps/trips/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(TYPES)('%s', { timeout: 120_000 }, async (label, field, values) => {
    const name = `t_${label.replace('-', '_')}`;
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'v', ...field },
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', '/api/apps/trips/datasources/main/datatables/', { name, json_schema: schema })).status).toBe(201);
    expect((await call('POST', `/api/apps/trips/datatables/${name}/materialize/`)).status).toBe(200);
    const data = `/api/apps/trips/datatables/${name}/data/`;
    let next = 1;
    await fc.assert(
      fc.asyncProperty(fc.array(values, { minLength: 1, maxLength: 12 }), async (batch) => {
        const rows = batch.map((v) => ({ id: next++, v }));
        const created = await call('POST', data, rows);
        expect(created.status, stringifyExactJson(created.body)).toBe(201);
        // A number's JSON text may be written with or without an exponent (PostgreSQL and JavaScript
        // differ past 2^53); the value is what must round-trip, so number fields compare as numbers.
        const same = (records: Array<Record<string, unknown>>) =>
          label === 'number'
            ? records.map((r): Record<string, unknown> => ({ ...r, v: typeof r.v === 'bigint' ? Number(r.v) : r.v }))
            : records;
        const answered = same(created.body.data as Array<Record<string, unknown>>);
        const listed = await call('GET', `${data}?id__gte=${rows[0]!.id}&_sort=id&page_size=100`);
        expect(same(listed.body.data)).toEqual(answered);
        const patched = await call('PATCH', data, answered);
        expect(patched.status, stringifyExactJson(patched.body)).toBe(200);
        // UPDATE ... RETURNING gives no order: compare by key.
        const byId = (records: Array<Record<string, unknown>>) => [...records].sort((a, b) => Number(a.id) - Number(b.id));
        expect(same(byId(patched.body.data))).toEqual(answered);
        const one = await call('PATCH', `${data}${answered[0]!.id}/`, { v: answered[0]!.v });
        expect(same([one.body.data])[0]).toEqual(answered[0]);
        const checked = await call('POST', `/api/apps/trips/datatables/${name}/validate_data/`, { data: answered });
        expect(checked.body).toEqual({ is_valid: true, errors: [], validated_rows: answered.length });
      }),
      { numRuns: 8, endOnFailure: true },
    );
  });

  it('keeps integers past 2^53 exact, and answers datetimes with Z and durations in ISO 8601', async () => {
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'at', type: 'datetime' },
        { name: 'span', type: 'duration' },
      ],
      primaryKey: ['id'],
    };
    expect((await call('POST', '/api/apps/trips/datasources/main/datatables/', { name: 'exact', json_schema: schema })).status).toBe(201);
    expect((await call('POST', '/api/apps/trips/datatables/exact/materialize/')).status).toBe(200);
    const created = await call('POST', '/api/apps/trips/datatables/exact/data/', {
      id: 9007199254740993n,
      at: '2024-01-01T10:00:00+02:00',
      span: 'P1Y2M',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: 9007199254740993n, at: '2024-01-01T08:00:00Z', span: 'P1Y2M' });
    const read = await call('GET', '/api/apps/trips/datatables/exact/data/9007199254740993/');
    expect(read.body.data).toEqual(created.body.data);
    const patched = await call('PATCH', '/api/apps/trips/datatables/exact/data/9007199254740993/', { span: 'PT36H' });
    expect(patched.body.data).toEqual({ id: 9007199254740993n, at: '2024-01-01T08:00:00Z', span: 'PT36H' });
    const largest = await call('POST', '/api/apps/trips/datatables/exact/data/', {
      id: 9223372036854775807n,
      at: '0050-01-01T00:00:00Z',
      span: 'PT0S',
    });
    expect(largest.body.data).toEqual({ id: 9223372036854775807n, at: '0050-01-01T00:00:00Z', span: 'PT0S' });
    expect((await call('GET', '/api/apps/trips/datatables/exact/data/9223372036854775807/')).body.data).toEqual(largest.body.data);
    expect((await call('POST', '/api/apps/trips/datatables/exact/data/', { id: 9223372036854775808n })).status).toBe(400);
  });
});
