// No 500 on a read route: every GET of every group's route table (read from functions/groups.ts,
// not listed here) gets query strings from fast-check (each route's own parameters, the list
// language's parameters, filters with every operator on fields of every type and across relations,
// prototype keys, huge numbers, NUL bytes, broken percent-encoding, repeated keys, deep JSON) and
// path parameters that name existing things or random ones, as the superuser, as a plain member of
// the site and signed out, through each group's real handler chain. Every case is drawn from a fixed
// seed (FUZZ_SEED overrides it, FUZZ_RUNS the cases per route and caller); each 5xx is reported
// with its seed, route and URL, so a failure can be replayed (FUZZ_LOG_LEVEL=ERROR logs each cause).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { FILTER_OPERATOR_NAMES } from '#functions/data/records/query/filters.ts';
import { endpointGroups } from '#functions/groups.ts';
import type { AnyRoute } from '#shared/http/route.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import {
  fuzzCallers,
  fuzzedPath,
  hugeNumbers,
  nastyStrings,
  PROTOTYPE_KEYS,
  startFuzzFixture,
  THING_FIELDS,
  type FuzzFailure,
  type FuzzFixture,
} from '#test/support/route-fuzz.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);

/** The records and edges routes read the whole query language: they get eight times the cases. */
function runsFor(route: AnyRoute): number {
  return /\/datatables\/\{name\}\/(data|edges)\//.test(route.path) ? RUNS * 8 : RUNS;
}

/** What the list and record routes read beyond a query schema (the records API reads its query raw). */
const LIST_PARAMETERS = [
  'page',
  'page_size',
  '_sort',
  '_order',
  '_count',
  'search',
  'populate',
  '_aggregate',
  '_group_by',
  'format',
  'include',
  'depth',
  'graph_types',
  'limit',
  'offset',
  'prefix',
  'sortBy',
  'include_expired',
  'status',
  'type',
  'from_id',
  'to_id',
  'fields',
];

/** Fields of the fixture tables, and paths across their relations (`notes.thing_id` → `things`). */
const FIELDS = [
  ...THING_FIELDS.map((field) => field.name),
  'body',
  'thing_id',
  'thing_id.s',
  'thing_id.o',
  'thing_id.id',
  'notes.body',
  'notes.thing_id.s',
  'name',
];

/** The filter language's operators, and a few it does not know. */
const OPERATORS = [...FILTER_OPERATOR_NAMES, 'regex', 'where', ''];

/** Values the list language parses: sorts, aggregates, populate paths, formats, includes. */
const LIST_VALUES = [
  '-s,i',
  '__proto__',
  '*',
  '*.*.*.*',
  'thing_id.notes.thing_id.notes',
  'notes,notes',
  'count(*)',
  'sum(o)',
  'avg(s),max(__proto__)',
  'count(',
  'tree',
  'graph',
  'descendants',
  'both',
  'planned',
  'none',
  '0',
  '-1',
  '99999999999999999999',
  '1e309',
  '[1,2]',
  '{"a":{"b":[1]}}',
  `${'['.repeat(300)}${']'.repeat(300)}`,
];

/** A route's own query keys, when its query is a zod object. */
function ownKeys(route: AnyRoute): string[] {
  const schema = route.query?.() as (ZodType & { shape?: Record<string, unknown> }) | undefined;
  return schema?.shape === undefined ? [] : Object.keys(schema.shape);
}

function keyArbitrary(route: AnyRoute): fc.Arbitrary<string> {
  const own = ownKeys(route);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(own.length > 0 ? own : LIST_PARAMETERS)) },
    { weight: 3, arbitrary: fc.constantFrom(...LIST_PARAMETERS) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...OPERATORS)).map(([f, o]) => (o === '' ? f : `${f}__${o}`)),
    },
    { weight: 1, arbitrary: fc.constantFrom('notes_sort', 'notes_limit', 'notes_offset', 'notes_order', 'thing_id_limit') },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, '__proto__.x', 'constructor.prototype', 'thing_id.__proto__') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

const valueArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: nastyStrings },
  { weight: 3, arbitrary: fc.constantFrom(...LIST_VALUES) },
  { weight: 2, arbitrary: hugeNumbers.map(String) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 200 }).map(String) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('a', '1', '', 'x,y', '%'), { maxLength: 2000 }).map((items) => items.join(',')) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((length) => 'y'.repeat(length)) },
);

/** Percent-encoding of a text; a lone surrogate, which encodeURIComponent refuses, becomes the bytes of its UTF-8-like form. */
function encode(text: string): string {
  return text
    .split(/([\ud800-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** One `key=value` as sent: mostly percent-encoded, sometimes raw (broken escapes), sometimes a bare key. */
const pairArbitrary = (route: AnyRoute): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(keyArbitrary(route), valueArbitrary).map(([k, v]) => `${encode(k)}=${encode(v)}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(keyArbitrary(route), fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%AF', '%ED%A0%80', '+', '=', '&&'))
        .map(([k, v]) => `${encode(k)}=${v}`),
    },
    { weight: 1, arbitrary: keyArbitrary(route).map(encode) },
  );

const queryArbitrary = (route: AnyRoute): fc.Arbitrary<string> =>
  fc.array(pairArbitrary(route), { maxLength: 5 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));

/** Known holes of other platforms, on every GET route before the random cases, whatever the seed. */
const CORPUS = [
  '?populate=__proto__',
  '?_sort=__proto__',
  '?__proto__=1&constructor.prototype.x=1',
  '?page=99999999999999999999&page_size=-1',
  `?search=${encodeURIComponent('(a+)+$')}`,
  `?s__in=${'x,'.repeat(3000)}`,
  '?o__has_key=%00',
  '?format=graph&include=both&depth=10000',
  '?%=%&a=%E0%A4%A',
  '?_aggregate=sum(o)&_group_by=__proto__',
  '?thing_id.s=a&thing_id.s=b&_sort=thing_id.o',
];

describe('read routes under fuzzing', () => {
  let fixture: FuzzFixture;

  const readRoutes = endpointGroups.flatMap((group) =>
    group.routes.filter((route) => route.method === 'GET').map((route) => ({ group: group.name, route })),
  );

  beforeAll(async () => {
    fixture = await startFuzzFixture();
    const { site, asAdmin, existing } = fixture;
    // A table related to `things`, and a hierarchy, so the relation parameters reach real relations.
    const tables = `/api/apps/${site.app}/datasources/main/datatables/`;
    await asAdmin('POST', tables, {
      name: 'notes',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'body', type: 'string' },
          { name: 'thing_id', type: 'string', format: 'uuid' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['thing_id'], reference: { resource: 'things', fields: ['id'] } }],
      },
    });
    await asAdmin('POST', tables, {
      name: 'nodes',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
        ],
        primaryKey: ['id'],
        hierarchy: true,
        graph: { enabled: true, types: [{ name: 'parent', inverse: 'children' }] },
      },
    });
    for (const name of ['notes', 'nodes']) await asAdmin('POST', `/api/apps/${site.app}/datatables/${name}/materialize/`, undefined);
    const data = (name: string) => `/api/apps/${site.app}/datatables/${name}/data/`;
    await asAdmin('POST', data('notes'), { id: 1, body: 'note', thing_id: existing.id![0] });
    await asAdmin('POST', data('nodes'), [
      { id: 1, name: 'root' },
      { id: 2, name: 'child' },
    ]);
    await asAdmin('POST', `/api/apps/${site.app}/datatables/nodes/edges/`, [{ from_id: 2, to_id: 1, type: 'parent' }]);
    existing.name!.push('notes', 'nodes');
    existing.id!.push('1', '2');
  });
  afterAll(async () => {
    await fixture.app.close();
  });

  it('answers every fuzzed read below 500, signed in as the superuser or a plain member, and signed out', {
    timeout: 600_000,
  }, async () => {
    const failures: FuzzFailure[] = [];
    const { app, site, plainUser, existing, handlers } = fixture;
    const callers = [...(await fuzzCallers(app, plainUser)), { name: 'signed out', token: undefined }];
    let requests = 0;
    for (const [routeIndex, { group, route }] of readRoutes.entries()) {
      for (const [callerIndex, caller] of callers.entries()) {
        const seed = SEED + routeIndex * callers.length + callerIndex;
        const random = fc.sample(fc.tuple(fuzzedPath(route, existing), queryArbitrary(route)), { seed, numRuns: runsFor(route) });
        const pathWithExisting = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => existing[name]?.[0] ?? 'x');
        const urls = [...CORPUS.map((query) => `${pathWithExisting}${query}`), ...random.map(([path, query]) => `${path}${query}`)];
        for (const [index, url] of urls.entries()) {
          const headers: Record<string, string> = { host: 'localhost', 'x-tenant': site.slug };
          if (caller.token !== undefined) headers.authorization = `Bearer ${caller.token}`;
          const result = await handlers.get(group)!(gatewayEvent({ method: 'GET', url, headers }), lambdaContext(group));
          requests += 1;
          if ((result.statusCode ?? 200) >= 500) {
            failures.push({
              route: `GET ${route.path}`,
              caller: caller.name,
              seed,
              index,
              url: url.length > 300 ? `${url.slice(0, 300)}… (${url.length} chars)` : url,
              status: result.statusCode ?? 0,
              answer: String(result.body ?? '').slice(0, 200),
            });
          }
        }
      }
    }

    if (failures.length > 0)
      console.error(
        `read-route fuzz: ${failures.length} answers ≥ 500 (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})\n${JSON.stringify(failures, null, 2)}`,
      );
    const planned = readRoutes.reduce((sum, { route }) => sum + callers.length * (runsFor(route) + CORPUS.length), 0);
    expect(requests).toBe(planned);
    expect(failures).toEqual([]);
  });
});
