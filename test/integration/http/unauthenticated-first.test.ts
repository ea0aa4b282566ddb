// Every route that needs a caller answers an anonymous request 401 before it looks at the input:
// a malformed or incomplete body, bad path parameters or an unknown site never turn it into 400 or 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { servedPaths } from '#shared/http/route.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

/** A concrete path for a route template: every parameter becomes a value no validator accepts. */
function concretePath(template: string): string {
  return template.replace(/\{[^}]+\}/g, '%20not%20valid%20');
}

const guarded = endpointGroups.flatMap((group) =>
  group.routes
    .filter((route) => route.access !== 'public' && route.access !== 'optional')
    .flatMap((route) => servedPaths(route).map((path) => ({ group: group.name, method: route.method, path, host: route.host }))),
);

describe('the unauthenticated check before input validation', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('covers routes of every group that needs a caller', () => {
    expect(new Set(guarded.map((route) => route.group))).toEqual(
      new Set(['console', 'data', 'events', 'hosting', 'roles', 'secrets', 'social', 'storage']),
    );
    expect(guarded.length).toBeGreaterThan(80);
  });

  it('leaves out only the docs group, whose description, explorer pages and health checks are public', () => {
    const unguarded = endpointGroups.filter((group) => !guarded.some((route) => route.group === group.name)).map((group) => group.name);
    expect(unguarded).toEqual(['auth', 'docs']);
    expect(endpointGroups.find((group) => group.name === 'docs')!.routes.every((route) => route.access === 'public')).toBe(true);
  });

  it('answers 401 to an anonymous POST /api/apps/ on a tenant without a name', async () => {
    const answer = await app.request('POST', '/api/apps/', { headers: { 'x-tenant': 'no-such-site' }, body: {} });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('AUTHENTICATION_FAILED');
  });

  it.each(guarded)('$method $path answers 401 to an anonymous caller with a bad body', async ({ method, path }) => {
    const answer = await app.request(method, concretePath(path), {
      headers: { 'x-tenant': 'no-such-site', 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : '{"broken": ',
    });
    expect(answer.status).toBe(401);
  });

  it('still validates the input of a signed-in caller', async () => {
    const answer = await app.request('POST', '/api/cloud/users/', { token: await app.adminToken(), body: {} });
    expect(answer.status).toBe(400);
  });
});
