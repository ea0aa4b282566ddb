// The event fixtures carry what API Gateway sends for the routes CDK creates from the route tables:
// the route key (top level and in requestContext) and the route's path parameters. `npm run
// fixtures` writes them; this fails when a route table changes and the fixtures were not rewritten.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { pathParametersOf } from '#infra/aws/gateway-route-selection.ts';
import { groupFixturesDir, listFixtures, readFixture } from '#infra/local/event-fixtures.ts';
import { deployedRouteFinder, withDeployedRoute } from '#infra/local/fixture-routes.ts';

const routeOf = deployedRouteFinder(endpointGroups);
const fixtures = (
  await Promise.all(
    endpointGroups.map(async (group) =>
      Promise.all(
        (
          await listFixtures(group.name)
        ).map(async (name) => ({
          id: `${group.name}/${name}`,
          group: group.name,
          event: await readFixture(path.join(groupFixturesDir(group.name), `${name}.json`)),
        })),
      ),
    ),
  )
).flat();

describe('deployed route of each fixture', () => {
  it.each(fixtures.map((fixture) => [fixture.id, fixture] as const))(
    '%s has the route key and path parameters of its gateway route',
    (_, fixture) => {
      const route = routeOf(fixture.group, fixture.event.rawPath);
      expect(fixture.event.routeKey).toBe(route.routeKey);
      expect(fixture.event.requestContext.routeKey).toBe(route.routeKey);
      expect(fixture.event.pathParameters).toEqual(route.pathParameters);
      expect(fixture.event.routeKey).not.toBe('$default');
    },
  );
});

describe('pathParametersOf', () => {
  it('gives a {name} its segment and a greedy {name+} the rest of the path, trailing slash included', () => {
    expect(pathParametersOf('/api/users/{param3}/roles', '/api/users/demo/roles/')).toEqual({ param3: 'demo' });
    expect(pathParametersOf('/api/cloud/users/{proxy+}', '/api/cloud/users/admin/')).toEqual({ proxy: 'admin/' });
    expect(pathParametersOf('/api/apps/{param3}/functions/{proxy+}', '/api/apps/crm/functions/1/')).toEqual({
      param3: 'crm',
      proxy: '1/',
    });
  });

  it('leaves the member out for a route without parameters, as the gateway does', () => {
    expect(pathParametersOf('/.well-known/jwks.json', '/.well-known/jwks.json')).toBeUndefined();
  });
});

describe('withDeployedRoute', () => {
  it('refuses a path that the gateway would send to another group', () => {
    expect(() => routeOf('auth', '/api/cloud/users/admin/')).toThrow(/group "console"/);
  });

  it('replaces stale path parameters and keeps every other member', () => {
    const [fixture] = fixtures;
    const stale = { ...fixture!.event, routeKey: '$default', pathParameters: { stale: 'x' } };
    const rewritten = withDeployedRoute(stale, { routeKey: 'ANY /x' });
    expect(rewritten.pathParameters).toBeUndefined();
    expect(rewritten.routeKey).toBe('ANY /x');
    expect(rewritten.requestContext.routeKey).toBe('ANY /x');
    expect(rewritten.rawPath).toBe(fixture!.event.rawPath);
    expect(rewritten.headers).toEqual(fixture!.event.headers);
  });
});
