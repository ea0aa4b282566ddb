// Must show, over HTTP on both storage layouts: text operators on typed fields match the text the
// records API answers for them (never PostgreSQL's own text of the column), `ina` matches whatever
// `in` matches, an explicit JSON null in an object, array or `any` field is a null to every operator
// and aggregate, and pages of grouped results sorted by an aggregate neither skip nor repeat a group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const FIELDS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'at', type: 'datetime' },
    { name: 'dur', type: 'duration' },
    { name: 'day', type: 'date' },
    { name: 'clock', type: 'time' },
    { name: 'yr', type: 'year' },
    { name: 'ym', type: 'yearmonth' },
    { name: 'price', type: 'number' },
    { name: 'qty', type: 'integer' },
    { name: 'flag', type: 'boolean' },
    { name: 'uid', type: 'string', format: 'uuid' },
    { name: 'meta', type: 'object' },
    { name: 'tags', type: 'array' },
    { name: 'anyf', type: 'any' },
  ],
  primaryKey: ['id'],
};

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Forty records; every fifth has no typed values, so negations meet nulls. */
const SEED = Array.from({ length: 40 }, (_, index) => {
  const id = index + 1;
  if (id % 5 === 0) return { id, qty: id % 7 };
  return {
    id,
    at: `2024-02-${pad(1 + (id % 28))}T${pad(id % 24)}:${pad((id * 7) % 60)}:00${id % 4 === 0 ? '.5' : ''}Z`,
    dur: id % 3 === 0 ? `P1DT${id % 24}H` : `PT${id}H${id % 2 === 0 ? '30M' : ''}`,
    day: `2023-${pad(1 + (id % 12))}-${pad(1 + (id % 28))}`,
    clock: `${pad(id % 24)}:15:0${id % 10}${id % 3 === 0 ? '.25' : ''}`,
    yr: 1990 + id,
    ym: `2024-${pad(1 + (id % 12))}`,
    price: id % 2 === 0 ? id / 4 : id * 10,
    qty: id % 7,
    flag: id % 3 === 0,
    uid: `0000000${id % 10}-0000-4000-8000-${pad(id, 12)}`,
  };
});

const TYPED = ['at', 'dur', 'day', 'clock', 'yr', 'ym', 'price', 'qty', 'flag', 'uid'] as const;
const LIKE = ['contains', 'icontains', 'containss', 'startswith', 'istartswith', 'startswiths', 'endswith', 'iendswith', 'endswiths'];
const NEGATED: Record<string, string> = {
  ncontains: 'contains',
  nicontains: 'icontains',
  nstartswith: 'startswith',
  nendswith: 'endswith',
  nina: 'ina',
};
const lower = (text: string) => text.toLowerCase();
const POSITIVE: Record<string, (text: string, value: string) => boolean> = {
  contains: (text, value) => text.includes(value),
  icontains: (text, value) => lower(text).includes(lower(value)),
  startswith: (text, value) => text.startsWith(value),
  istartswith: (text, value) => lower(text).startsWith(lower(value)),
  endswith: (text, value) => text.endsWith(value),
  iendswith: (text, value) => lower(text).endsWith(lower(value)),
  ina: (text, value) => value.split(',').some((item) => lower(item) === lower(text)),
};

/** What an operator holds for a record's answered text (null: an absent or null field). */
function holds(operator: string, value: string, text: string | null): boolean {
  if (operator in NEGATED) return !holds(NEGATED[operator]!, value, text);
  const positive = POSITIVE[operator.replace(/^(contains|startswith|endswith)s$/, '$1')]!;
  return text !== null && positive(text, value);
}

/** The records' answered texts of a field, by id. */
function textsOf(records: Array<Record<string, unknown>>, name: string): Array<{ id: number; text: string | null }> {
  return records.map((record) => ({ id: record.id as number, text: record[name] == null ? null : String(record[name]) }));
}

/** PostgreSQL's ascending order of group values: nulls last. */
function ascending(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

let app: TestApp;
let admin: string;
let tenant: Record<string, string>;
const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.adminToken();
  tenant = (await createSite(app, admin, 'Answered Values Site')).headers;
  expect((await call('POST', '/api/apps/', { name: 'Probe' })).status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

describe.each(['flat_table', 'jsonb'] as const)('the record query language on a %s table', (provider) => {
  const DATA = `/api/apps/probe/datatables/items_${provider}/data/`;
  /** The ids of the records a query finds, checking the total against them. */
  const ids = async (query: string): Promise<number[]> => {
    const answer = await call('GET', `${DATA}?${query}&_sort=id&page_size=1000`);
    expect(answer.status, query).toBe(200);
    expect(answer.body.total, query).toBe(answer.body.data.length);
    return answer.body.data.map((record: { id: number }) => record.id);
  };
  let records: Array<Record<string, unknown>>;

  beforeAll(async () => {
    const source = provider === 'jsonb' ? 'documents' : 'columns';
    expect((await call('POST', '/api/apps/probe/datasources/', { name: source, provider_type: provider })).status).toBe(201);
    const table = await call('POST', `/api/apps/probe/datasources/${source}/datatables/`, {
      name: `items_${provider}`,
      json_schema: FIELDS,
    });
    expect(table.status).toBe(201);
    expect((await call('POST', `/api/apps/probe/datatables/items_${provider}/materialize/`)).status).toBe(200);
    expect((await call('POST', DATA, SEED)).status).toBe(201);
    records = (await call('GET', `${DATA}?_sort=id&page_size=1000`)).body.data;
  });

  it('answers datetimes and durations in their ISO 8601 forms, as the filters below read them', async () => {
    // Prepare / Act: the records as the API answers them.
    const first = records.find((record) => record.id === 1)!;
    const third = records.find((record) => record.id === 3)!;

    // Assess: the texts the text operators must work on.
    expect(first).toMatchObject({ at: '2024-02-02T01:07:00Z', dur: 'PT1H', clock: '01:15:01', day: '2023-02-02' });
    expect(third).toMatchObject({ dur: 'P1DT3H', clock: '03:15:03.25' });
  });

  it.each(TYPED)('matches text operators on %s fields against the text the API answers', async (name) => {
    // Prepare: substrings of answered values, other cases, and LIKE's own characters.
    const texts = textsOf(records, name);
    const sample = texts.find((entry) => entry.text !== null && entry.id === 4)!.text!;
    const values = [
      sample,
      sample.slice(0, 6),
      sample.slice(-4),
      sample.slice(3, 8).toLowerCase(),
      'T1',
      'z',
      '%',
      '_',
      '\\',
      `${sample.slice(0, 2)}%`,
    ];

    for (const operator of [...LIKE, 'ncontains', 'nicontains', 'nstartswith', 'nendswith']) {
      for (const value of values) {
        // Act
        const found = await ids(`id__lte=40&${name}__${operator}=${encodeURIComponent(value)}`);

        // Assess
        const expected = texts.filter((entry) => holds(operator, value, entry.text)).map((entry) => entry.id);
        expect(found, `${name}__${operator}=${value}`).toEqual(expected);
      }
    }
  });

  it.each(TYPED)('matches ina and nina on %s fields by the answered text in any case', async (name) => {
    // Prepare
    const texts = textsOf(records, name);
    const [one, two] = texts.filter((entry) => entry.text !== null).map((entry) => entry.text!);
    const lists = [one!, `${one!.toLowerCase()},${two!.toUpperCase()}`, 'nothing', '%', `${one},\\_`];

    for (const operator of ['ina', 'nina']) {
      for (const list of lists) {
        // Act
        const found = await ids(`id__lte=40&${name}__${operator}=${encodeURIComponent(list)}`);

        // Assess
        const expected = texts.filter((entry) => holds(operator, list, entry.text)).map((entry) => entry.id);
        expect(found, `${name}__${operator}=${list}`).toEqual(expected);
      }
    }
  });

  it('matches with ina every value in matches, in whatever form in takes it', async () => {
    // Prepare: the instant of record 1 with another offset, and a duration equal to record 3's.
    const cases = [
      ['at', '2024-02-02T03:07:00+02:00'],
      ['at', '2024-02-02T01:07:00Z'],
      ['dur', 'PT27H'],
      ['dur', 'P1DT3H'],
      ['price', '10.0'],
      ['flag', 'TRUE'],
      ['uid', '00000001-0000-4000-8000-000000000001'.toUpperCase()],
    ];
    for (const [name, value] of cases) {
      // Act
      const within = await ids(`${name}__in=${encodeURIComponent(value!)}`);
      const insensitive = await ids(`${name}__ina=${encodeURIComponent(value!.toLowerCase())}`);
      const outside = await ids(`${name}__nin=${encodeURIComponent(value!)}`);
      const insensitiveOutside = await ids(`${name}__nina=${encodeURIComponent(value!.toLowerCase())}`);

      // Assess
      expect(within.length, `${name}__in=${value}`).toBeGreaterThan(0);
      expect(insensitive, `${name}__ina=${value}`).toEqual(within);
      expect(insensitiveOutside, `${name}__nina=${value}`).toEqual(outside);
    }
  });

  describe('with an explicit JSON null', () => {
    const AMONG = 'id__in=101,102,103';
    beforeAll(async () => {
      // A record with JSON nulls, one with values, one without the fields at all.
      const created = await call('POST', DATA, [
        { id: 101, meta: null, tags: null, anyf: null },
        { id: 102, meta: { a: 1 }, tags: ['x', null], anyf: 'text' },
        { id: 103 },
      ]);
      expect(created.status).toBe(201);
    });

    it.each(['meta', 'tags', 'anyf'])('finds a JSON null in %s as null, by null tests, negations and equality', async (name) => {
      expect(await ids(`${AMONG}&${name}__null=true`)).toEqual([101, 103]);
      expect(await ids(`${AMONG}&${name}__nnull=true`)).toEqual([102]);
      expect(await ids(`${AMONG}&${name}__null=false`)).toEqual([102]);
      expect(await ids(`${AMONG}&${name}=null`)).toEqual([]);
      expect(await ids(`${AMONG}&${name}__ne=null`)).toEqual([101, 102, 103]);
      expect(await ids(`${AMONG}&${name}__contains=null`)).toEqual(name === 'tags' ? [102] : []);
      expect(await ids(`${AMONG}&${name}__ncontains=null`)).toEqual(name === 'tags' ? [101, 103] : [101, 102, 103]);
      expect(await ids(`${AMONG}&${name}__contained_by=${encodeURIComponent('[null]')}`)).toEqual([]);
    });

    it('keeps a JSON null out of containment, key and property tests, and in their negations', async () => {
      expect(await ids(`${AMONG}&meta__ncontains=${encodeURIComponent('{"a":1}')}`)).toEqual([101, 103]);
      expect(await ids(`${AMONG}&tags__ncontains=${encodeURIComponent('["x"]')}`)).toEqual([101, 103]);
      expect(await ids(`${AMONG}&meta__has_key=a`)).toEqual([102]);
      expect(await ids(`${AMONG}&meta__a__null=true`)).toEqual([101, 103]);
      expect(await ids(`${AMONG}&meta__a__ne=1`)).toEqual([101, 103]);
    });

    it('counts, groups and sorts a JSON null as null', async () => {
      // Act
      const counts = await call('GET', `${DATA}?${AMONG}&_aggregate=count(*),count(meta),count(tags),count(anyf),count_distinct(tags)`);
      const groups = await call('GET', `${DATA}?${AMONG}&_aggregate=count(*)&_group_by=meta`);
      const sorted = await call('GET', `${DATA}?${AMONG}&_sort=anyf,-id`);

      // Assess
      expect(counts.body.data).toEqual([{ count: 3, count_meta: 1, count_tags: 1, count_anyf: 1, count_distinct_tags: 1 }]);
      expect(groups.body.data).toEqual([
        { meta: { a: 1 }, count: 1 },
        { meta: null, count: 2 },
      ]);
      expect(sorted.body.data.map((record: { id: number }) => record.id)).toEqual([102, 103, 101]);
    });
  });

  it.each(['yr', 'ym', 'qty'])('pages groups of %s sorted by an aggregate without skipping or repeating one', async (group) => {
    // Prepare: groups with many equal counts, and the whole list on one page.
    const query = `_aggregate=count(*),sum(price)&_group_by=${group}&_sort=-count&id__lte=40`;
    const whole = (await call('GET', `${DATA}?${query}&page_size=1000`)).body.data as Array<Record<string, unknown>>;
    expect(new Set(whole.map((entry) => entry.count)).size).toBeLessThan(whole.length / 2);

    // Act: page by page, and by following `next` without a count.
    const paged: unknown[] = [];
    for (let page = 1; page <= Math.ceil(whole.length / 2); page += 1) {
      paged.push(...(await call('GET', `${DATA}?${query}&page_size=2&page=${page}`)).body.data);
    }
    const followed: unknown[] = [];
    let next: string | null = `${DATA}?${query}&page_size=2&_count=none`;
    while (next !== null) {
      const answer = await call('GET', next);
      expect(answer.status).toBe(200);
      followed.push(...answer.body.data);
      const url: URL | null = answer.body.next === null ? null : new URL(answer.body.next, 'http://relative.test');
      next = url === null ? null : `${url.pathname}${url.search}`;
    }

    // Assess: ties on the count in the group's order.
    expect(whole).toEqual([...whole].sort((a, b) => (b.count as number) - (a.count as number) || ascending(a[group], b[group])));
    expect(paged).toEqual(whole);
    expect(followed).toEqual(whole);
  });

  it('pages groups of two fields sorted by one of them in the order of the other', async () => {
    // Act
    const query = '_aggregate=count(*)&_group_by=flag,qty&_sort=-flag&id__lte=40';
    const whole = (await call('GET', `${DATA}?${query}&page_size=1000`)).body.data as Array<{ flag: boolean | null; qty: number }>;
    const paged: unknown[] = [];
    for (let page = 1; page <= Math.ceil(whole.length / 3); page += 1) {
      paged.push(...(await call('GET', `${DATA}?${query}&page_size=3&page=${page}`)).body.data);
    }

    // Assess: flag descending (nulls first, as PostgreSQL sorts them descending), then qty ascending.
    const rank = (flag: boolean | null) => (flag === null ? 0 : flag ? 1 : 2);
    expect(whole).toEqual([...whole].sort((a, b) => rank(a.flag) - rank(b.flag) || a.qty - b.qty));
    expect(paged).toEqual(whole);
  });
});
