// No 500 on any write route: every POST, PUT, PATCH and DELETE of every group's route table (read
// from functions/groups.ts, not listed here) gets bodies from fast-check (wrong types, deep
// nesting, prototype keys, huge numbers, NUL bytes, invalid durations and dates, long strings) and
// path parameters that name existing things or random ones, as the superuser and as a plain member
// of the site, through each group's real handler chain. Every case is drawn from a fixed seed
// (FUZZ_SEED overrides it, FUZZ_RUNS the cases per route and caller); each 5xx is reported with its
// seed, route and body, so a failure can be replayed (FUZZ_LOG_LEVEL=ERROR logs each cause).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

/** Field names the routes and the fixture table know, so bodies reach past the first check. */
const FIELD_NAMES = [
  'name',
  'slug',
  'description',
  'title',
  'username',
  'email',
  'password',
  'first_name',
  'is_active',
  'is_staff',
  'is_superuser',
  'user_id',
  'user_slug',
  'group_ids',
  'groups',
  'is_admin',
  'sites',
  'site',
  'users',
  'permissions',
  'invitee_identifier',
  'invitation_config',
  'environment',
  'domain',
  'is_primary',
  'key',
  'value',
  'secret_type',
  'schema',
  'app',
  'provider_type',
  'provider_config',
  'json_schema',
  'fields',
  'type',
  'format',
  'constraints',
  'primaryKey',
  'data',
  'ids',
  'filter',
  'paths',
  'path',
  'metadata',
  'visibility',
  'filename',
  'size',
  'content_type',
  'object_uuid',
  'source_path',
  'destination_path',
  'destination_bucket',
  'prefix',
  'search',
  'sortBy',
  'limit',
  'offset',
  'app_category',
  'file_size_limit',
  'allowed_mime_types',
  'storage_provider',
  'refresh',
  'token',
  'ticket',
  'old_password',
  'new_password',
  ...THING_FIELDS.map((field) => field.name),
];

const longStrings = fc.integer({ min: 1000, max: 70_000 }).map((length) => 'x'.repeat(length));
const leaf = fc.oneof(
  { weight: 3, arbitrary: nastyStrings },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: longStrings },
  { weight: 2, arbitrary: hugeNumbers },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const keys = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 5 }),
  ),
}));
const record = fc.dictionary(keys, value, { maxKeys: 8 });

/** An object `depth` levels deep, a prototype key at the bottom. */
function nested(depth: number): string {
  return `${'{"data":['.repeat(depth - 1)}{"__proto__":{"polluted":true}}${']}'.repeat(depth - 1)}`;
}

/** The fixture table's fields, each valid or just past what its type holds. */
const thingFields = {
  s: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('a\u0000b', '\ud800', 'x'.repeat(51))),
  n: fc.oneof(fc.double(), hugeNumbers, fc.constantFrom('1e400', 'NaN')),
  // biome-ignore lint/correctness/noPrecisionLoss: as hugeNumbers, past a double's precision on purpose.
  i: fc.oneof(fc.integer(), hugeNumbers, fc.constantFrom(9223372036854775807, 2 ** 63, 1.5, '12')),
  b: fc.oneof(fc.boolean(), fc.constantFrom('true', 0, 1, null)),
  d: fc.constantFrom('2024-02-29', '2024-02-30', '0001-01-01', '9999-12-31', '99999-01-01', '-0001-01-01', '2024-1-1', ''),
  dt: fc.constantFrom(
    '2024-01-01T00:00:00Z',
    '294277-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:00:00+25:00',
    'infinity',
  ),
  t: fc.constantFrom('12:00:00', '24:00:00', '25:61:61', '12:00:00.1234567', '12:00'),
  dur: fc.constantFrom('P1D', 'P99999999999Y', 'PT99999999999H', 'P178000000Y', 'PT0S', 'P1Y2M3DT4H5M6.5S', 'P', 'PT', '-P1D', 'P1.5Y'),
  y: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 99999, 2 ** 40)),
  ym: fc.constantFrom('2024-01', '2024-13', '0000-00', '99999-01', '2024'),
  o: fc.oneof(record, fc.constant({ __proto__: null, a: 'a\u0000b' })),
  a: fc.array(value, { maxLength: 4 }),
  g: fc.oneof(fc.tuple(fc.double(), fc.double()), fc.constantFrom([200, 100], [0, 0], { lat: 91, lon: 181 }, '0,0', [1e308, -1e308])),
  gj: fc.oneof(value, fc.constantFrom({ type: 'Point', coordinates: [1e308, 0] }, { type: 'Polygon', coordinates: [] })),
  any: value,
};
/** Records of the fixture table: several fields at once, or one alone (so nothing else is refused first). */
const thingRecord = fc.oneof(
  fc.record(thingFields, { requiredKeys: [] }),
  ...Object.entries(thingFields).map(([field, arbitrary]) => (arbitrary as fc.Arbitrary<unknown>).map((one) => ({ [field]: one }))),
);

/** A body as the text on the wire: mostly JSON, sometimes not. */
const bodyText = fc.oneof(
  { weight: 5, arbitrary: record.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: fc.array(record, { maxLength: 3 }).map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: value.map((body) => JSON.stringify(body) ?? 'null') },
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 80 }).map(nested) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      nested(5000),
      '{"a":',
      '',
      'null',
      '[]',
      '"text"',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '\u0000',
    ),
  },
);

/** Bodies of the record routes: mostly records of the fixture table, as one, an array, or `{data}`. */
const recordBodyText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .oneof(thingRecord, fc.array(thingRecord, { maxLength: 3 }), fc.record({ data: fc.array(thingRecord, { maxLength: 3 }) }))
      .map((body) => JSON.stringify(body)),
  },
  { weight: 1, arbitrary: bodyText },
);

/**
 * The probes of issue 12 as a seed corpus: every write route gets each of them before the random
 * cases, so a known hole shows on every run whatever the seed.
 */
const CORPUS = [
  '{"constructor":"x","toString":1,"valueOf":[],"name":"Proto"}',
  '{"__proto__":{"is_superuser":true},"name":"Proto"}',
  nested(5000),
  '{"dur":"P99999999999Y"}',
  '[{"dur":"PT99999999999H"}]',
  '{"name":"a\\u0000b","s":"a\\u0000b","metadata":{"k":"a\\u0000b"},"description":"a\\u0000b"}',
  '{"i":1e308,"n":-1e308,"size":1e308,"file_size_limit":1e308,"user_id":1e308,"limit":1e308,"offset":-1e308}',
];

/** Non-DELETE routes first, then deletes from the deepest path up, token revocation last. */
function fuzzOrder(routes: Array<{ group: string; route: AnyRoute }>): Array<{ group: string; route: AnyRoute }> {
  const rank = ({ route }: { route: AnyRoute }) => (route.path.includes('/blacklist/') ? 2 : route.method === 'DELETE' ? 1 : 0);
  return routes
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) =>
        rank(a.entry) - rank(b.entry) || (rank(a.entry) === 1 ? b.entry.route.path.length - a.entry.route.path.length : a.index - b.index),
    )
    .map(({ entry }) => entry);
}

describe('write routes under fuzzing', () => {
  let fixture: FuzzFixture;

  const writeRoutes = fuzzOrder(
    endpointGroups.flatMap((group) =>
      group.routes.filter((route) => route.method !== 'GET').map((route) => ({ group: group.name, route })),
    ),
  );

  beforeAll(async () => {
    fixture = await startFuzzFixture();
  });
  afterAll(async () => {
    await fixture.app.close();
  });

  const contentTypeFor = (route: AnyRoute) =>
    route.streamBody === true
      ? fc.constantFrom('application/json', 'text/plain', 'image/*', 'application/octet-stream', 'multipart/form-data; boundary=zz', 'x')
      : fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain');

  it('answers every fuzzed write below 500, as the superuser and as a plain member', { timeout: 600_000 }, async () => {
    const failures: FuzzFailure[] = [];
    const { app, site, plainUser, existing, handlers } = fixture;
    let requests = 0;
    for (const [routeIndex, { group, route }] of writeRoutes.entries()) {
      const callers = await fuzzCallers(app, plainUser);
      for (const [callerIndex, caller] of callers.entries()) {
        const seed = SEED + routeIndex * 2 + callerIndex;
        const body = /\/(data|validate_data)\//.test(route.path) ? recordBodyText : bodyText;
        const random = fc.sample(fc.record({ path: fuzzedPath(route, existing), body, contentType: contentTypeFor(route) }), {
          seed,
          numRuns: RUNS,
        });
        // The corpus on the route's path filled with existing values (the first of each pool).
        const probes = CORPUS.map((probe) => ({
          path: route.path.replace(/\{([^}]+)\}/g, (_, name: string) => existing[name]?.[0] ?? 'x'),
          body: probe,
          contentType: 'application/json',
        }));
        const cases = [...probes, ...random];
        for (const [index, sample] of cases.entries()) {
          const headers: Record<string, string> = { host: 'localhost', authorization: `Bearer ${caller.token}`, 'x-tenant': site.slug };
          if (sample.body !== '') headers['content-type'] = sample.contentType;
          const result = await handlers.get(group)!(
            gatewayEvent({ method: route.method, url: sample.path, headers, body: sample.body === '' ? undefined : sample.body }),
            lambdaContext(group),
          );
          requests += 1;
          if ((result.statusCode ?? 200) >= 500) {
            failures.push({
              route: `${route.method} ${route.path}`,
              caller: caller.name,
              seed,
              index,
              url: sample.path,
              contentType: sample.contentType,
              body: sample.body.length > 300 ? `${sample.body.slice(0, 300)}… (${sample.body.length} chars)` : sample.body,
              status: result.statusCode ?? 0,
              answer: String(result.body ?? '').slice(0, 200),
            });
          }
        }
      }
    }

    if (failures.length > 0)
      console.error(
        `write-route fuzz: ${failures.length} answers ≥ 500 (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})\n${JSON.stringify(failures, null, 2)}`,
      );
    expect(requests).toBe(writeRoutes.length * 2 * (RUNS + CORPUS.length));
    expect(failures).toEqual([]);
  });
});
