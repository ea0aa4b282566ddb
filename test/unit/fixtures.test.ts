// The event fixtures of `npm run invoke`: each one is a v2 event for a route of its group that the
// route would accept, and every route of every group has one, so a new route without a fixture fails here.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import type { AnyRoute } from '#shared/http/route.ts';
import { Router } from '#shared/http/router.ts';
import { FIXTURES_ROOT, FixtureError, groupFixturesDir, listFixtures, readFixture, resolveFixture } from '#infra/local/event-fixtures.ts';
import { fillPlaceholders, type PlaceholderSource } from '#infra/local/fixture-placeholders.ts';

interface LoadedFixture {
  group: string;
  name: string;
  event: APIGatewayProxyEventV2;
}

/** Stand-ins for the values the CLI takes from the local database. */
const stubValues: PlaceholderSource = {
  accessToken: async (username) => `access-token-of-${username}`,
  refreshToken: async (username) => `refresh-token-of-${username}`,
  password: async () => 'a-local-password',
};

const fixtures: LoadedFixture[] = (
  await Promise.all(
    endpointGroups.map(async (group) =>
      Promise.all(
        (
          await listFixtures(group.name)
        ).map(async (name) => ({
          group: group.name,
          name,
          event: await readFixture(path.join(groupFixturesDir(group.name), `${name}.json`)),
        })),
      ),
    ),
  )
).flat();

function routeOf(fixture: LoadedFixture): { route: AnyRoute; params: Record<string, string> } {
  const group = endpointGroups.find((candidate) => candidate.name === fixture.group)!;
  return new Router(group.routes).match(fixture.event.requestContext.http.method, fixture.event.rawPath);
}

const cases = fixtures.map((fixture) => [`${fixture.group}/${fixture.name}`, fixture] as const);

describe('event fixtures', () => {
  it('has a folder only for endpoint groups', async () => {
    const folders = (await readdir(FIXTURES_ROOT, { withFileTypes: true })).filter((entry) => entry.isDirectory());
    const groupNames = endpointGroups.map((group) => group.name);

    expect(folders.map((folder) => folder.name).filter((name) => !groupNames.includes(name))).toEqual([]);
  });

  it.each(cases)('%s targets a route of its group', (_, fixture) => {
    expect(() => routeOf(fixture)).not.toThrow();
  });

  it.each(cases)('%s keeps the path, method and query of the event consistent', (_, fixture) => {
    const { event } = fixture;
    const query = new URLSearchParams(event.rawQueryString);
    const expectedParameters = Object.fromEntries([...new Set(query.keys())].map((key) => [key, query.getAll(key).join(',')]));

    expect(event.requestContext.http.path).toBe(event.rawPath);
    expect(event.queryStringParameters ?? {}).toEqual(expectedParameters);
    expect(event.headers.host).toBeDefined();
  });

  it.each(cases)('%s is a request its route accepts', async (_, fixture) => {
    const event = await fillPlaceholders(fixture.event, stubValues);
    const { route, params } = routeOf(fixture);

    expect(route.params?.().safeParse(params).error).toBeUndefined();
    expect(route.query?.().safeParse(Object.fromEntries(new URLSearchParams(event.rawQueryString))).error).toBeUndefined();
    if (route.body !== undefined) {
      expect(event.headers['content-type']).toMatch(/json/);
      expect(route.body().safeParse(JSON.parse(event.body ?? '{}')).error).toBeUndefined();
    }
  });

  it.each(cases)('%s sends a token when its route wants a caller', (_, fixture) => {
    const { route } = routeOf(fixture);
    const wantsCaller = route.access !== 'public' && route.access !== 'optional';

    if (wantsCaller) expect(fixture.event.headers.authorization).toMatch(/^Bearer \{\{token:[^}]+\}\}$/);
  });

  it.each(endpointGroups.flatMap((group) => group.routes.map((route) => [group.name, route.method, route.path, route] as const)))(
    'route %s %s %s has a fixture',
    (groupName, _method, _path, route) => {
      const covering = fixtures.filter((fixture) => fixture.group === groupName && routeOf(fixture).route === route);

      expect(covering.map((fixture) => fixture.name)).not.toEqual([]);
    },
  );
});

describe('finding a fixture from the command line', () => {
  it('finds a fixture of the group with or without .json', async () => {
    const withExtension = await resolveFixture('auth', 'obtain-token.json', process.cwd());
    const withoutExtension = await resolveFixture('auth', 'obtain-token', process.cwd());

    expect(withoutExtension).toBe(path.join(groupFixturesDir('auth'), 'obtain-token.json'));
    expect(withExtension).toBe(withoutExtension);
  });

  it('takes a path relative to the working directory', async () => {
    const file = await resolveFixture('console', 'events-fixtures/console/list-users.json', path.resolve(FIXTURES_ROOT, '..'));

    expect(file).toBe(path.join(groupFixturesDir('console'), 'list-users.json'));
  });

  it('lists the fixtures of the group when the name is unknown', async () => {
    const failure = resolveFixture('auth', 'no-such-fixture', process.cwd());

    await expect(failure).rejects.toBeInstanceOf(FixtureError);
    await expect(failure).rejects.toThrow(/no-such-fixture[\s\S]*obtain-token/);
  });
});
