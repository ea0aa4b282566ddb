// Forged credentials and hostile hosts on every route of every group (read from functions/groups.ts):
// unsigned (`alg: none`) and wrongly signed tokens naming the superuser, a refresh token as a bearer,
// a cut token, another scheme, oversized and NUL-bearing values. Every route that needs a caller
// must answer them with 401, whatever its method, before it reads a body or changes anything; none
// may answer 500. Hosts and tenant headers that name nothing answer below 500 too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { startFuzzFixture, type FuzzFixture } from '#test/support/route-fuzz.ts';
import { ADMIN } from '#test/support/test-app.ts';

/** base64url of a JSON value, for forged tokens. */
function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * Credentials no route may accept: unsigned (`alg: none`) and HMAC-signed tokens naming the
 * superuser, a refresh token, a truncated token, the superuser's real password under Basic, and
 * sizes and bytes a parser may choke on. `{admin}` stands for the superuser's subject, `{refresh}`
 * for a real refresh token, `{access-truncated}` for a real access token cut short.
 */
const FORGED_AUTHORIZATIONS = [
  `Bearer ${segment({ alg: 'none', typ: 'JWT' })}.${segment({ sub: '{admin}', token_type: 'access', exp: 4102444800 })}.`,
  `Bearer ${segment({ alg: 'HS256', typ: 'JWT' })}.${segment({ sub: '{admin}', token_type: 'access', exp: 4102444800 })}.c2lnbmF0dXJl`,
  'Bearer {refresh}',
  'Bearer {access-truncated}',
  'Bearer',
  'Bearer a.b.c',
  'Basic YWRtaW46YWRtaW4tcGFzc3dvcmQtMTIz',
  `Bearer ${'x'.repeat(20_000)}`,
  'Bearer \u0000',
];

/** Host and tenant headers that name nothing, or nothing well formed. */
const HOSTILE_HOSTS: Array<Record<string, string>> = [
  { host: 'localhost', 'x-tenant': '__proto__' },
  { host: 'localhost', 'x-tenant': 'constructor' },
  { host: 'localhost', 'x-tenant': '../../x' },
  { host: 'localhost', 'x-tenant': 'a'.repeat(5000) },
  { host: 'localhost', 'x-tenant': '' },
  { host: 'localhost:99999' },
  { host: '[::1' },
  { host: `${'b'.repeat(300)}.example.com` },
  { host: '__proto__.api.example.test' },
];

describe('forged credentials and hostile hosts on every route', () => {
  let fixture: FuzzFixture;
  const routes = endpointGroups.flatMap((group) => group.routes.map((route) => ({ group: group.name, route })));

  beforeAll(async () => {
    fixture = await startFuzzFixture();
  });
  afterAll(async () => {
    await fixture.app.close();
  });

  it('refuses forged credentials with 401 wherever a caller is needed, and answers hostile hosts below 500', {
    timeout: 600_000,
  }, async () => {
    const { app, site, existing, handlers } = fixture;
    const tokens = await app.login(ADMIN.username, ADMIN.password);
    const admin = JSON.parse(Buffer.from(tokens.access.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string };
    const authorizations = FORGED_AUTHORIZATIONS.map((value) =>
      value.replace('{admin}', admin.sub).replace('{refresh}', tokens.refresh).replace('{access-truncated}', tokens.access.slice(0, -5)),
    );
    const accepted: string[] = [];
    const failures: string[] = [];
    for (const { group, route } of routes) {
      const url = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(existing[name]?.[0] ?? 'x'));
      const body = route.method === 'GET' ? undefined : '{}';
      const send = (headers: Record<string, string>) =>
        handlers.get(group)!(
          gatewayEvent({
            method: route.method,
            url,
            headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            body,
          }),
          lambdaContext(group),
        );
      const what = `${route.method} ${url}`;
      for (const authorization of authorizations) {
        const result = await send({ host: 'localhost', 'x-tenant': site.slug, authorization });
        const status = result.statusCode ?? 200;
        if (status >= 500) failures.push(`${status} ${what} with ${authorization.slice(0, 40)}`);
        // A public or optional route may answer as to no one; every other one refuses them all.
        if (route.access !== 'public' && route.access !== 'optional' && status !== 401)
          accepted.push(`${status} ${what} with ${authorization.slice(0, 40)}`);
      }
      // Reads only: a write with a real token would change the fixture the other probes name.
      if (route.method !== 'GET') continue;
      for (const headers of HOSTILE_HOSTS) {
        const result = await send({ ...headers, authorization: `Bearer ${tokens.access}` });
        if ((result.statusCode ?? 200) >= 500) failures.push(`${result.statusCode} ${what} with ${JSON.stringify(headers).slice(0, 80)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(accepted).toEqual([]);
  });
});
