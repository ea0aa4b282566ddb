import { describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { selectRoute } from '#infra/aws/gateway-route-selection.ts';
import { gatewayRoutes, routeBase, RouteKeyConflictError, sampleRequest, type RoutedGroup } from '#infra/aws/gateway-routes.ts';
import { servedPaths } from '#shared/http/route.ts';

const group = (name: string, ...paths: Array<string | { path: string; consoleAlias: true }>): RoutedGroup => ({
  name,
  routes: paths.map((path) => (typeof path === 'string' ? { path } : path)),
});

const keysOf = (groups: RoutedGroup[], name?: string): string[] =>
  gatewayRoutes(groups)
    .filter((route) => name === undefined || route.group === name)
    .map((route) => route.routeKey)
    .sort();

describe('route bases', () => {
  it('cuts at the greedy parameter, renames parameters by position and drops the trailing slash', () => {
    expect(routeBase('/api/cloud/users/{username}/restore/')).toBe('/api/cloud/users/{param4}/restore');
    expect(routeBase('/api/apps/{app}/storage/buckets/{bucket}/objects/{key+}')).toBe(
      '/api/apps/{param3}/storage/buckets/{param6}/objects',
    );
    expect(routeBase('/.well-known/jwks.json')).toBe('/.well-known/jwks.json');
    expect(routeBase('/{site}/')).toBe('/{param1}');
  });

  it('rejects a parameter that is only part of a segment', () => {
    expect(() => routeBase('/api/files/{name}.json')).toThrow(/whole segment/);
  });
});

describe('gateway route selection model', () => {
  const routes = ['/pets/dog/1', '/pets/dog/{param3}', '/pets/{proxy+}', '/{proxy+}'].map((path) => ({ path }));

  it('prefers a full match, then a literal over a parameter, then the longest greedy route', () => {
    expect(selectRoute(routes, '/pets/dog/1')?.path).toBe('/pets/dog/1');
    expect(selectRoute(routes, '/pets/dog/2')?.path).toBe('/pets/dog/{param3}');
    expect(selectRoute(routes, '/pets/cat/2')?.path).toBe('/pets/{proxy+}');
    expect(selectRoute(routes, '/stores/1')?.path).toBe('/{proxy+}');
  });

  it('needs at least one segment for a greedy parameter', () => {
    expect(selectRoute([{ path: '/pets/{proxy+}' }], '/pets')).toBeUndefined();
  });
});

describe('gateway route keys', () => {
  it('registers the base and its greedy child for each served path', () => {
    expect(keysOf([group('console', '/api/cloud/users/{username}/')])).toEqual([
      'ANY /api/cloud/users/{param4}',
      'ANY /api/cloud/users/{param4}/{proxy+}',
    ]);
  });

  it('registers console paths under both URL forms', () => {
    expect(keysOf([group('console', { path: '/api/cloud/users/', consoleAlias: true })])).toEqual([
      'ANY /api/cloud/users',
      'ANY /api/cloud/users/{proxy+}',
      'ANY /api/users',
      'ANY /api/users/{proxy+}',
    ]);
  });

  it('leaves out keys that the same group already covers with a greedy route', () => {
    const keys = keysOf([group('auth', '/api/auth/jwt/token/', '/api/auth/jwt/token/refresh/', '/api/auth/jwt/token/{id}/')]);
    expect(keys).toEqual(['ANY /api/auth/jwt/token', 'ANY /api/auth/jwt/token/{proxy+}']);
  });

  it('keeps the keys a group needs where another group claims a route below its own', () => {
    // Prepare: storage lives under data's app paths; data's deeper route sits below storage's.
    const groups = [
      group('data', '/api/apps/', '/api/apps/{app}/', '/api/apps/{app}/storage/buckets/stats/'),
      group('storage', '/api/apps/{app}/storage/buckets/', '/api/apps/{app}/storage/buckets/{bucket}/objects/{key+}'),
    ];
    // Act
    const routes = gatewayRoutes(groups);
    // Assess
    const route = (path: string) => selectRoute(routes, path)?.group;
    expect(route('/api/apps/blog/')).toBe('data');
    expect(route('/api/apps/blog/storage/buckets/')).toBe('storage');
    expect(route('/api/apps/blog/storage/buckets/media/objects/a/b.png')).toBe('storage');
    expect(route('/api/apps/blog/storage/buckets/stats/')).toBe('data');
    expect(keysOf(groups, 'data')).toEqual([
      'ANY /api/apps',
      'ANY /api/apps/{param3}/storage/buckets/stats',
      'ANY /api/apps/{param3}/storage/buckets/stats/{proxy+}',
      'ANY /api/apps/{proxy+}',
    ]);
  });

  it('fails when two groups claim the same route key', () => {
    const groups = [group('console', '/api/cloud/sites/{slug}/'), group('data', '/api/cloud/sites/{site}/')];
    expect(() => gatewayRoutes(groups)).toThrow(RouteKeyConflictError);
    expect(() => gatewayRoutes(groups)).toThrow(
      'Route key "ANY /api/cloud/sites/{param4}" is claimed by endpoint groups "console" and "data"',
    );
  });

  it('fails when a console alias collides with another group', () => {
    const groups = [group('console', { path: '/api/cloud/users/', consoleAlias: true }), group('auth', '/api/users/')];
    expect(() => gatewayRoutes(groups)).toThrow('Route key "ANY /api/users" is claimed by endpoint groups "console" and "auth"');
  });

  it('fails when two groups take the same greedy base', () => {
    const groups = [group('storage', '/files/{key+}'), group('hosting', '/files/{path+}')];
    expect(() => gatewayRoutes(groups)).toThrow('Route key "ANY /files" is claimed by endpoint groups "storage" and "hosting"');
  });

  it('fails when a route of one group can only ever reach another group', () => {
    // A literal segment beats a parameter, so hosting's literal shadows the sample of data's route.
    const groups = [group('hosting', '/sites/sample-value/'), group('data', '/sites/{slug}/')];
    expect(() => gatewayRoutes(groups)).toThrow('Request /sites/sample-value of endpoint group "data" would reach group "hosting"');
  });

  it('routes every served path of every endpoint group to that group', () => {
    // Prepare
    const routes = gatewayRoutes(endpointGroups);
    const requests = endpointGroups.flatMap((endpointGroup) =>
      endpointGroup.routes.flatMap(servedPaths).flatMap((path) => {
        const sample = sampleRequest(path);
        return [sample, `${sample}/`].map((request) => ({ request, expected: endpointGroup.name }));
      }),
    );
    // Act
    const misrouted = requests.filter(({ request, expected }) => selectRoute(routes, request)?.group !== expected);
    // Assess
    expect(requests.length).toBeGreaterThan(endpointGroups.length);
    expect(misrouted).toEqual([]);
  });
});
