import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineRoute, servedPaths, type AnyRoute } from '#shared/http/route.ts';
import { endpointGroups } from '#functions/groups.ts';
import { Router, type RouteMatch } from '#shared/http/router.ts';

function route(method: 'GET' | 'POST' | 'PUT', path: string, consoleAlias = false): AnyRoute {
  return defineRoute({
    method,
    path,
    consoleAlias,
    summary: `${method} ${path}`,
    access: 'public',
    host: 'any',
    envelope: 'bare',
    handler: async () => path,
  });
}

describe('Router', () => {
  const router = new Router([
    route('GET', '/api/sites/{site_slug}/'),
    route('GET', '/api/sites/config/'),
    route('GET', '/api/cloud/users/{username}/', true),
    route('POST', '/api/cloud/users/{username}/restore/', true),
    route('GET', '/api/apps/{app}/objects/{key+}'),
  ]);

  it('prefers a literal segment over a parameter', () => {
    expect(router.match('GET', '/api/sites/config/').route.path).toBe('/api/sites/config/');
    expect(router.match('GET', '/api/sites/main/').params).toEqual({ site_slug: 'main' });
  });

  it('treats the trailing slash as optional', () => {
    expect(router.match('GET', '/api/sites/config').route.path).toBe('/api/sites/config/');
    expect(router.match('POST', '/api/cloud/users/ann/restore').params).toEqual({ username: 'ann' });
  });

  it('serves console routes under /api/cloud and /api', () => {
    expect(router.match('GET', '/api/cloud/users/ann/').params).toEqual({ username: 'ann' });
    expect(router.match('GET', '/api/users/ann/').params).toEqual({ username: 'ann' });
  });

  it('captures the rest of the path in a greedy parameter, decoded per segment', () => {
    expect(router.match('GET', '/api/apps/crm/objects/docs/2024/a%20b.pdf').params).toEqual({
      app: 'crm',
      key: 'docs/2024/a b.pdf',
    });
  });

  it('answers a known path with the wrong method with 405 and the allowed methods', () => {
    expect(() => router.match('DELETE', '/api/cloud/users/ann/')).toThrowError(
      expect.objectContaining({ status: 405, code: 'METHOD_NOT_ALLOWED', headers: { Allow: 'GET, HEAD, OPTIONS' } }),
    );
  });

  it('lists HEAD in a 405 only for a path that has GET', () => {
    // Prepare / Act
    const onGetPath = (): RouteMatch => router.match('PUT', '/api/sites/main/');
    const onPostOnlyPath = (): RouteMatch => router.match('GET', '/api/cloud/users/ann/restore/');

    // Assess
    expect(onGetPath).toThrowError(expect.objectContaining({ status: 405, headers: { Allow: 'GET, HEAD, OPTIONS' } }));
    expect(onPostOnlyPath).toThrowError(expect.objectContaining({ status: 405, headers: { Allow: 'POST, OPTIONS' } }));
  });

  it('answers an unknown path with 404 and broken percent-encoding with 400', () => {
    expect(() => router.match('GET', '/api/nowhere/')).toThrowError(expect.objectContaining({ status: 404 }));
    expect(() => router.match('GET', '/api/sites/%E0%A4%A/')).toThrowError(expect.objectContaining({ status: 400 }));
  });

  it('does not let a parameter swallow a slash', () => {
    expect(() => router.match('GET', '/api/sites/a/b/')).toThrowError(expect.objectContaining({ status: 404 }));
  });

  it('finds every route of the platform by its own path, with and without the trailing slash', () => {
    const routes = endpointGroups.flatMap((group) => group.routes);
    const platform = new Router(routes);
    for (const candidate of routes) {
      for (const path of servedPaths(candidate)) {
        const concrete = path.replace(/\{[a-z_]+\+\}/g, 'deep/er/key.txt').replace(/\{[a-z_]+\}/g, 'x1');
        for (const variant of [concrete, concrete.replace(/\/$/, ''), `${concrete.replace(/\/$/, '')}/`]) {
          expect(platform.match(candidate.method, variant).route, `${candidate.method} ${variant}`).toBe(candidate);
        }
      }
    }
  });

  it('matches the root, doubled slashes and greedy tails as a scan of every pattern would', () => {
    const tree = new Router([
      route('GET', '/'),
      route('GET', '/api/{a}/'),
      route('GET', '/api/files/{key+}'),
      route('GET', '/api/{a}/{b}/'),
    ]);
    expect(tree.match('GET', '/').route.path).toBe('/');
    expect(tree.match('GET', '/api/x').route.path).toBe('/api/{a}/');
    expect(tree.match('GET', '/api/files/a//b/').params).toEqual({ key: 'a//b/' });
    expect(tree.match('GET', '/api/files/a').params).toEqual({ key: 'a' });
    expect(tree.match('GET', '/api/files/b').route.path).toBe('/api/files/{key+}');
    expect(tree.match('GET', '/api/x/y/').params).toEqual({ a: 'x', b: 'y' });
    expect(() => tree.match('GET', '/api//')).toThrowError(expect.objectContaining({ status: 404 }));
    expect(() => tree.match('GET', '/api/x//')).toThrowError(expect.objectContaining({ status: 404 }));
  });

  it('keeps the zod schemas of a route with its handler', () => {
    const typed = defineRoute({
      method: 'GET',
      path: '/x/{id}',
      summary: 'x',
      access: 'public',
      host: 'any',
      params: () => z.object({ id: z.coerce.number() }),
      envelope: 'bare',
      handler: async (_ctx, { params }) => params.id + 1,
    });
    expect(typed.params).toBeDefined();
  });
});
