// What the route fuzz tests share: a platform with something of every kind for the routes' path
// parameters to name (a site with a plain member, another site with a domain, an invitation, a
// group, a secret type and a secret, a table with a field of every type and one record, two buckets
// and an object), the values that break parsers, and a route's fuzzed path.
import fc from 'fast-check';
import { endpointGroups } from '#functions/groups.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import type { AnyRoute } from '#shared/http/route.ts';
import { createSite } from '#test/support/sites.ts';
import { createBucket, createStorageSite, sendBinary, siteUser, type StorageSite } from '#test/support/storage.ts';
import { ADMIN, startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

/** Keys that reach an object's prototype when code copies them without care. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

/** Numbers at and past a double's limits. */
// biome-ignore lint/correctness/noPrecisionLoss: numbers past a double's precision are what the fuzzers send.
export const hugeNumbers = fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 2 ** 64, 5e-324, 123456789012345678901234567890, -0);
/** Strings that break parsers: NUL bytes, broken dates and durations, injections, a lone surrogate, a ReDoS pattern. */
export const nastyStrings = fc.constantFrom(
  'a\u0000b',
  '\u0000',
  'P99999999999Y',
  'PT',
  'P1Y2M3DT4H5M6.5S',
  '-P1D',
  'P',
  '2024-02-30',
  '0000-00-00',
  '99999-12-31T23:59:59Z',
  '2024-13-01T25:61:61Z',
  '2024-01-01T00:00:00+99:00',
  'not-a-date',
  '1e400',
  'NaN',
  '-Infinity',
  '<script>alert(1)</script>',
  "'; drop table x; --",
  '../../etc/passwd',
  '%00',
  '\ud800',
  'ß'.repeat(500),
  '*/*',
  'image/*',
  '(a+)+$',
);

/** A path segment that names nothing, or nothing well formed. */
const randomSegment = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }),
  fc.uuid(),
  fc.integer().map(String),
  fc.constantFrom('..', '.', '%2e%2e', 'a%00b', 'x'.repeat(300), '-1', '0', '99999999999999999999', 'constructor', '__proto__', 'me'),
);

export interface FuzzCaller {
  name: 'superuser' | 'plain user';
  username: string;
  token: string;
}

/** An answer of 500 or more, with what replays it. */
export interface FuzzFailure {
  route: string;
  caller: string;
  seed: number;
  index: number;
  url: string;
  contentType?: string;
  body?: string;
  status: number;
  answer: string;
}

/** The fixture table `things`: a field of every Table Schema type, so fuzzed queries and bodies meet each. */
export const THING_FIELDS = [
  { name: 'id', type: 'string', format: 'uuid' },
  { name: 's', type: 'string', constraints: { maxLength: 50 } },
  { name: 'n', type: 'number' },
  { name: 'i', type: 'integer' },
  { name: 'b', type: 'boolean' },
  { name: 'd', type: 'date' },
  { name: 'dt', type: 'datetime' },
  { name: 't', type: 'time' },
  { name: 'dur', type: 'duration' },
  { name: 'y', type: 'year' },
  { name: 'ym', type: 'yearmonth' },
  { name: 'o', type: 'object' },
  { name: 'a', type: 'array' },
  { name: 'g', type: 'geopoint' },
  { name: 'gj', type: 'geojson' },
  { name: 'any', type: 'any' }, // Table Schema's `any` type (and a field named for it), not TypeScript's
];

export interface FuzzFixture {
  app: TestApp;
  site: StorageSite;
  /** A member of the site with `access_site` only. */
  plainUser: string;
  /** Existing values for each path parameter name. */
  existing: Record<string, string[]>;
  /** Each group's real handler chain, by group name. */
  handlers: Map<string, ApiHandler>;
  /** A superuser's JSON request on the site; anything but 2xx throws. */
  asAdmin: (method: string, path: string, body: unknown, headers?: Record<string, string>) => Promise<unknown>;
}

export async function startFuzzFixture(): Promise<FuzzFixture> {
  // FUZZ_LOG_LEVEL=ERROR shows the cause of each 500 in the platform's log.
  const app = await startTestApp(process.env.FUZZ_LOG_LEVEL === undefined ? {} : { LOG_LEVEL: process.env.FUZZ_LOG_LEVEL });
  const admin = await app.adminToken();
  const json = async (method: string, path: string, body: unknown, headers: Record<string, string> = site.tenant) => {
    const answer = await app.request(method, path, { token: admin, headers, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const site = await createStorageSite(app, admin, 'Fuzz Site');
  const plainUser = 'fuzz-plain';
  await siteUser(app, admin, site, plainUser, ['access_site']);
  // Things the console routes may change or delete without taking the fixture down with them.
  const victim = await createSite(app, admin, 'Victim Site');
  await app.createUser('fuzz-victim');
  const domain = await json('POST', `/api/cloud/sites/${victim.slug}/domains/`, { domain: 'victim.example.com' }, {});
  const group = await json('POST', '/api/cloud/groups/', { name: 'Fuzzers' }, {});
  const invitation = await json(
    'POST',
    `/api/cloud/organizations/${victim.organization}/invitations/`,
    { invitee_identifier: 'fuzz-invitee@example.com' },
    {},
  );
  await json('POST', '/api/secret-types/', { slug: 'fuzz-type', name: 'Fuzz type', schema: { type: 'string' } });
  await json('POST', '/api/secrets/', { key: 'fuzz-key', value: 'v', secret_type: 'fuzz-type' });
  // A table with a field of every type, materialized, with one record.
  await json('POST', `/api/apps/${site.app}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
  await json('POST', `/api/apps/${site.app}/datasources/main/datatables/`, {
    name: 'things',
    json_schema: { fields: THING_FIELDS, primaryKey: ['id'] },
  });
  await json('POST', `/api/apps/${site.app}/datatables/things/materialize/`, undefined);
  const thing = await json('POST', `/api/apps/${site.app}/datatables/things/data/`, { s: 'one', n: 1, i: 1, b: true });
  const files = await createBucket(app, admin, site, { name: 'Files' });
  await createBucket(app, admin, site, { name: 'Gallery', visibility: 'public' });
  const upload = await sendBinary(app.url, 'PUT', `${files}docs/a.txt`, {
    token: admin,
    body: 'bytes',
    headers: { ...site.tenant, 'content-type': 'text/plain' },
  });
  if (upload.status !== 201) throw new Error(`upload: ${upload.status}`);

  const recordId = String((thing as { data?: { id?: string }; id?: string }).data?.id ?? (thing as { id?: string }).id);
  const existing: Record<string, string[]> = {
    username: ['fuzz-victim'],
    org_slug: [victim.organization],
    site_slug: [victim.slug],
    domain_slug: [String((domain as { slug?: string; uuid?: string }).slug ?? (domain as { uuid: string }).uuid)],
    uuid: [String((invitation as { uuid: string }).uuid)],
    id: [recordId, String((group as { id: number }).id), String((invitation as { uuid: string }).uuid)],
    token: ['0'.repeat(40)],
    slug: ['fuzz-type'],
    key: ['fuzz-key'],
    app_slug: [site.app],
    datasource_slug: ['main'],
    name: ['things'],
    bucket_slug: ['files', 'gallery'],
    'key+': ['docs/a.txt', 'docs/new.txt'],
  };
  const handlers = new Map<string, ApiHandler>();
  for (const group of endpointGroups) handlers.set(group.name, await group.loadHandler());
  return { app, site, plainUser, existing, handlers, asAdmin: json };
}

/** Fresh tokens for the two callers: an earlier case may have revoked a session (blacklist, password). */
export async function fuzzCallers(app: TestApp, plainUser: string): Promise<FuzzCaller[]> {
  return [
    { name: 'superuser', username: ADMIN.username, token: (await app.login(ADMIN.username, ADMIN.password)).access },
    { name: 'plain user', username: plainUser, token: (await app.login(plainUser, USER_PASSWORD)).access },
  ];
}

/** The route's path with each `{param}` filled in, mostly with existing values; `key+` keeps its slashes. */
export function fuzzedPath(route: AnyRoute, existing: Readonly<Record<string, string[]>>): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const values = names.map((name) =>
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(existing[name] ?? ['x'])) }, { weight: 1, arbitrary: randomSegment }),
  );
  return fc.tuple(...values).map((filled) => {
    let path = route.path;
    names.forEach((name, index) => {
      const raw = filled[index]!;
      const encoded = name.endsWith('+') ? raw.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(raw);
      path = path.replace(`{${name}}`, encoded);
    });
    return path;
  });
}
