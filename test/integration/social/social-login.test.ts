// Programmatic sign-in end to end against a real OpenID Connect issuer on loopback: state and PKCE,
// ID token validation, linking by verified email only, and every refusal leaving nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { OIDC_CLIENT, startOidcIssuer, type OidcIssuer } from '#test/support/oidc-issuer.ts';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const REDIRECT = 'https://app.example.test/callback';

describe('programmatic social sign-in', () => {
  let app: TestApp;
  let issuer: OidcIssuer;
  let admin: string;
  let site: Awaited<ReturnType<typeof createSite>>;

  const providerBody = (providerId: string, serverUrl: string) => ({
    provider: 'openid_connect',
    provider_id: providerId,
    name: providerId,
    client_id: OIDC_CLIENT.id,
    secret: OIDC_CLIENT.secret,
    settings: { server_url: serverUrl, redirect_uris: [REDIRECT] },
  });
  const start = (provider: string, headers: Record<string, string> = {}, redirect = REDIRECT) =>
    app.request('GET', `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(redirect)}`, {
      headers: { accept: 'application/json', ...headers },
    });
  const finish = (provider: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request('POST', `/api/auth/${provider}/token/`, { body: { redirect_uri: REDIRECT, ...body }, headers });
  const counts = async () => {
    const [row] = await app.runtime.db.rows<{ users: number; accounts: number }>(sql`select
      (select count(*)::int from platform.users) as users, (select count(*)::int from platform.social_accounts) as accounts`);
    return row!;
  };
  /** Redirect, provider round trip, and the code and state it came back with. */
  async function providerCallback(provider: string, headers: Record<string, string> = {}) {
    const started = await start(provider, headers);
    expect(started.status).toBe(200);
    return issuer.authorize(started.body.authorization_url, REDIRECT);
  }

  beforeAll(async () => {
    issuer = await startOidcIssuer([REDIRECT]);
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Login Site');
    for (const headers of [{}, site.headers]) {
      const created = await app.request('POST', '/api/auth/social-apps/', {
        token: admin,
        headers,
        body: providerBody('loopback', issuer.url),
      });
      expect(created.status).toBe(201);
    }
    await app.request('POST', '/api/auth/social-apps/', { token: admin, body: providerBody('other', issuer.url) });
    await app.createUser('existing', { email: 'existing@example.com' });
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  it('answers 302 to the provider with state, nonce and PKCE', async () => {
    const redirect = await app.request('GET', `/api/auth/loopback/redirect/?redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get('location')!);
    expect(location.origin).toBe(issuer.url);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    for (const parameter of ['state', 'nonce', 'code_challenge']) expect(location.searchParams.get(parameter)).toBeTruthy();
  });

  it('creates a user for a verified email and signs the same subject in again', async () => {
    issuer.signInAs({ sub: 'sub-new', email: 'new.person@example.com', email_verified: true, given_name: 'New', family_name: 'Person' });
    const first = await finish('loopback', await providerCallback('loopback'));
    expect(first.status).toBe(200);
    expect(first.body.user).toMatchObject({ username: 'newperson', email: 'new.person@example.com' });
    const me = await app.request('GET', '/api/cloud/users/newperson/', { token: first.body.access });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ first_name: 'New', last_name: 'Person' });
    issuer.signInAs({ sub: 'sub-new', email: 'changed@example.com', email_verified: true });
    const again = await finish('loopback', await providerCallback('loopback'));
    expect(again.body.user.username).toBe('newperson');
  });

  it('links an existing user by verified email instead of creating a duplicate', async () => {
    const before = await counts();
    issuer.signInAs({ sub: 'sub-existing', email: 'EXISTING@example.com', email_verified: true });
    const answer = await finish('loopback', await providerCallback('loopback'));
    expect(answer.status).toBe(200);
    expect(answer.body.user.username).toBe('existing');
    expect(await counts()).toEqual({ users: before.users, accounts: before.accounts + 1 });
  });

  it('refuses an unverified email and creates nothing', async () => {
    const before = await counts();
    issuer.signInAs({ sub: 'sub-unverified', email: 'existing@example.com', email_verified: false });
    const answer = await finish('loopback', await providerCallback('loopback'));
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/verif/);
    expect(await counts()).toEqual(before);
  });

  it('refuses an empty (blank) subject', async () => {
    const before = await counts();
    issuer.signInAs({ sub: '', email: 'empty.sub@example.com', email_verified: true });
    const answer = await finish('loopback', await providerCallback('loopback'));
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/sub/);
    expect(await counts()).toEqual(before);
  });

  it('refuses a replayed state, a foreign state and a state from another host', async () => {
    issuer.signInAs({ sub: 'sub-replay', email: 'replay@example.com', email_verified: true });
    const callback = await providerCallback('loopback');
    expect((await finish('loopback', callback)).status).toBe(200);
    const before = await counts();
    expect((await finish('loopback', callback)).status).toBe(400);
    const otherCallback = await providerCallback('other');
    expect((await finish('loopback', otherCallback)).status).toBe(400);
    const tenantCallback = await providerCallback('loopback', site.headers);
    expect((await finish('loopback', tenantCallback)).status).toBe(400);
    expect((await finish('loopback', { code: 'made-up', state: 'made-up' })).status).toBe(400);
    expect(
      (await finish('loopback', { ...(await providerCallback('loopback')), redirect_uri: 'https://evil.example.test/callback' })).status,
    ).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it("signs in through a site's own provider, linking in the site's schema", async () => {
    issuer.signInAs({ sub: 'sub-tenant', email: 'tenant.user@example.com', email_verified: true });
    const answer = await finish('loopback', await providerCallback('loopback', site.headers), site.headers);
    expect(answer.status).toBe(200);
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    const linked = await app.runtime.db.rows(sql`select uid from ${sql.identifier(row!.schema_name)}.social_accounts`);
    expect(linked).toEqual([{ uid: 'sub-tenant' }]);
  });

  it('refuses a redirect_uri that is not registered', async () => {
    const answer = await start('loopback', {}, 'https://evil.example.test/callback');
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toHaveProperty('redirect_uri');
    expect((await start('nobody-here')).status).toBe(404);
  });

  it('answers 502 and creates nothing when the provider is down', async () => {
    const down = await startOidcIssuer([REDIRECT]);
    await app.request('POST', '/api/auth/social-apps/', { token: admin, body: providerBody('flaky', down.url) });
    down.signInAs({ sub: 'sub-flaky', email: 'flaky@example.com', email_verified: true });
    const callback = await (async () => {
      const started = await start('flaky');
      return down.authorize(started.body.authorization_url, REDIRECT);
    })();
    await down.close();
    const before = await counts();
    const answer = await finish('flaky', callback);
    expect(answer.status).toBe(502);
    expect(answer.body.code).toBe('BAD_GATEWAY');
    expect(await counts()).toEqual(before);
    expect((await start('flaky')).status).toBe(502);
  });
});
