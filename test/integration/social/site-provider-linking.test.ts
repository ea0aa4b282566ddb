// A site's sign-in providers are configured by its owners, so they vouch only for the accounts they
// made or were linked to: end to end against a real OpenID Connect issuer on loopback, a site owner's
// provider claiming the superuser's email gets 409 and nothing, while new users, platform linking by
// verified email, and links kept per site and per issuer still work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { OIDC_CLIENT, startOidcIssuer, type OidcIssuer } from '#test/support/oidc-issuer.ts';
import { createSite } from '#test/support/sites.ts';
import { ADMIN, startTestApp, type TestApp } from '#test/support/test-app.ts';

const REDIRECT = 'https://alice-shop.example.test/callback';

describe("a site's sign-in provider", () => {
  let app: TestApp;
  let issuer: OidcIssuer;
  let admin: string;
  let alice: string;
  let aliceSite: Awaited<ReturnType<typeof createSite>>;
  let bobSite: Awaited<ReturnType<typeof createSite>>;

  const providerBody = (providerId: string, serverUrl = issuer.url) => ({
    provider: 'openid_connect',
    provider_id: providerId,
    name: providerId,
    client_id: OIDC_CLIENT.id,
    secret: OIDC_CLIENT.secret,
    settings: { server_url: `${serverUrl}/.well-known/openid-configuration`, redirect_uris: [REDIRECT] },
  });
  /** Redirect, the issuer's round trip, and the code exchange: the answer of the token endpoint. */
  async function signIn(provider: string, headers: Record<string, string> = {}) {
    const started = await app.request('GET', `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(REDIRECT)}`, {
      headers: { accept: 'application/json', ...headers },
    });
    expect(started.status).toBe(200);
    const callback = await issuer.authorize(started.body.authorization_url, REDIRECT);
    return app.request('POST', `/api/auth/${provider}/token/`, { body: { ...callback, redirect_uri: REDIRECT }, headers });
  }
  const schemaOf = async (slug: string) => {
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${slug}`);
    return sql.identifier(row!.schema_name);
  };
  const linksOf = async (slug: string) =>
    app.runtime.db.rows<{ uid: string; username: string }>(sql`select a.uid, u.username
      from ${await schemaOf(slug)}.social_accounts a join platform.users u on u.id = a.user_id order by a.id`);
  const userCount = async () => {
    const [row] = await app.runtime.db.rows<{ n: number }>(sql`select count(*)::int as n from platform.users`);
    return row!.n;
  };

  beforeAll(async () => {
    issuer = await startOidcIssuer([REDIRECT]);
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    await app.createUser('alice');
    await app.createUser('bob');
    await app.createUser('carol', { email: 'carol@example.com' });
    alice = await app.tokenOf('alice');
    aliceSite = await createSite(app, alice, 'Alice Shop');
    bobSite = await createSite(app, await app.tokenOf('bob'), 'Bob Shop');
    for (const [token, site] of [
      [alice, aliceSite],
      [await app.tokenOf('bob'), bobSite],
    ] as const) {
      const created = await app.request('POST', '/api/auth/social-apps/', { token, headers: site.headers, body: providerBody('evil-idp') });
      expect(created.status).toBe(201);
    }
    const platformApp = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: providerBody('platform-idp') });
    expect(platformApp.status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  it("answers 409 without tokens or a link when it claims an existing account's email (the superuser's)", async () => {
    // Prepare
    const users = await userCount();
    issuer.signInAs({ sub: 'evil-sub-1', email: ADMIN.email, email_verified: true });

    // Act
    const first = await signIn('evil-idp', aliceSite.headers);
    const second = await signIn('evil-idp', aliceSite.headers);

    // Assess
    for (const answer of [first, second]) {
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already exists/) });
      expect(answer.body).not.toHaveProperty('access');
      expect(answer.body).not.toHaveProperty('refresh');
    }
    expect(await linksOf(aliceSite.slug)).toEqual([]);
    expect(await userCount()).toBe(users);
  });

  it('answers 409 for an ordinary existing account whatever the case of the email', async () => {
    // Prepare
    issuer.signInAs({ sub: 'evil-sub-2', email: 'CAROL@example.com', email_verified: true });

    // Act
    const answer = await signIn('evil-idp', aliceSite.headers);

    // Assess
    expect(answer.status).toBe(409);
    expect(await linksOf(aliceSite.slug)).toEqual([]);
  });

  it('creates a new user for an unknown email and signs the same subject in again', async () => {
    // Prepare
    issuer.signInAs({ sub: 'shopper-1', email: 'shopper@example.com', email_verified: true });

    // Act
    const first = await signIn('evil-idp', aliceSite.headers);
    issuer.signInAs({ sub: 'shopper-1', email: 'shopper.changed@example.com', email_verified: true });
    const again = await signIn('evil-idp', aliceSite.headers);

    // Assess
    expect(first.status).toBe(200);
    expect(first.body.user).toMatchObject({ username: 'shopper', email: 'shopper@example.com' });
    expect(again.status).toBe(200);
    expect(again.body.user.uuid).toBe(first.body.user.uuid);
    expect(await linksOf(aliceSite.slug)).toEqual([{ uid: 'shopper-1', username: 'shopper' }]);
  });

  it('numbers a new username past one taken in another case', async () => {
    // Prepare: usernames are unique in any case, so `Dora` takes `dora`.
    await app.createUser('Dora');
    issuer.signInAs({ sub: 'dora-1', email: 'dora@elsewhere.example', email_verified: true });

    // Act
    const signedIn = await signIn('evil-idp', aliceSite.headers);

    // Assess
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.username).toBe('dora-2');
  });

  it("does not sign a subject linked through one site's provider in through another site's of the same name", async () => {
    // Prepare
    issuer.signInAs({ sub: 'traveller-1', email: 'traveller@example.com', email_verified: true });
    const atAlice = await signIn('evil-idp', aliceSite.headers);
    expect(atAlice.status).toBe(200);

    // Act
    const sameEmail = await signIn('evil-idp', bobSite.headers);
    issuer.signInAs({ sub: 'traveller-1', email: 'traveller.other@example.com', email_verified: true });
    const otherEmail = await signIn('evil-idp', bobSite.headers);

    // Assess
    expect(sameEmail.status).toBe(409);
    expect(otherEmail.status).toBe(200);
    expect(otherEmail.body.user.uuid).not.toBe(atAlice.body.user.uuid);
    expect(await linksOf(bobSite.slug)).toEqual([{ uid: 'traveller-1', username: otherEmail.body.user.username }]);
  });

  it('refuses to point a provider with linked users at another issuer', async () => {
    // Prepare
    const list = await app.request('GET', '/api/auth/social-apps/', { headers: aliceSite.headers });
    const id = list.body.data[0].id as number;
    const other = await startOidcIssuer([REDIRECT]);
    await other.close();

    // Act
    const repointed = await app.request('PATCH', `/api/auth/social-apps/${id}/`, {
      token: alice,
      headers: aliceSite.headers,
      body: { settings: providerBody('evil-idp', other.url).settings },
    });
    const renamed = await app.request('PATCH', `/api/auth/social-apps/${id}/`, {
      token: alice,
      headers: aliceSite.headers,
      body: { name: 'Shop' },
    });

    // Assess
    expect(repointed.status).toBe(400);
    expect(repointed.body).toMatchObject({ success: false, active_users: expect.any(Number), errors: { settings: expect.any(Array) } });
    expect(renamed.status).toBe(200);
    const detail = await app.request('GET', `/api/auth/social-apps/${id}/`, { token: alice, headers: aliceSite.headers });
    expect(detail.body.settings.server_url).toBe(`${issuer.url}/.well-known/openid-configuration`);
  });

  it("lets a platform provider link an existing user by verified email, apart from the sites' links", async () => {
    // Prepare
    issuer.signInAs({ sub: 'carol-sub', email: 'carol@example.com', email_verified: true });

    // Act
    const first = await signIn('platform-idp');
    const again = await signIn('platform-idp');

    // Assess
    expect(first.status).toBe(200);
    expect(first.body.user.username).toBe('carol');
    expect(again.body.user.username).toBe('carol');
    const links = await app.runtime.db.rows(sql`select a.uid from platform.social_accounts a
      join platform.users u on u.id = a.user_id where u.username = 'carol'`);
    expect(links).toEqual([{ uid: 'carol-sub' }]);
  });
});
