// Pre-account takeover through an email nobody proved, end to end against a real OpenID Connect
// issuer on loopback. An attacker puts the victim's address on an account (profile, an invitation
// accepted by its own sender, a site's provider); when the victim signs in through a platform
// provider, the account is linked as the spec says (no duplicate) but handed over: the attacker's
// password, tokens and provider links stop working. An email a platform provider vouched for links
// as before, credentials kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { OIDC_CLIENT, startOidcIssuer, type IssuerAccount, type OidcIssuer } from '#test/support/oidc-issuer.ts';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

const REDIRECT = 'https://console.example.test/callback';

describe('a provider sign-in to an account whose email nobody proved', () => {
  let app: TestApp;
  let issuer: OidcIssuer;
  let admin: string;

  const providerBody = (providerId: string) => ({
    provider: 'openid_connect',
    provider_id: providerId,
    name: providerId,
    client_id: OIDC_CLIENT.id,
    secret: OIDC_CLIENT.secret,
    settings: { server_url: issuer.url, redirect_uris: [REDIRECT] },
  });
  /** Redirect, the issuer's round trip as `account`, and the code exchange: the token endpoint's answer. */
  async function signIn(provider: string, account: IssuerAccount, headers: Record<string, string> = {}) {
    const started = await app.request('GET', `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(REDIRECT)}`, {
      headers: { accept: 'application/json', ...headers },
    });
    expect(started.status).toBe(200);
    issuer.signInAs(account);
    const callback = await issuer.authorize(started.body.authorization_url, REDIRECT);
    return app.request('POST', `/api/auth/${provider}/token/`, { body: { ...callback, redirect_uri: REDIRECT }, headers });
  }
  const profileStatus = async (token: string) => (await app.request('GET', '/api/profile/', { token })).status;
  const refreshStatus = async (refresh: string) =>
    (await app.request('POST', '/api/auth/jwt/token/refresh/', { body: { refresh } })).status;
  const passwordStatus = async (username: string, password: string) =>
    (await app.request('POST', '/api/auth/jwt/token/', { body: { username, password } })).status;
  const userCount = async () => {
    const [row] = await app.runtime.db.rows<{ n: number }>(sql`select count(*)::int as n from platform.users`);
    return row!.n;
  };
  const setOwnEmail = async (token: string, email: string) => {
    const changed = await app.request('PUT', '/api/profile/', { token, body: { email } });
    expect(changed.status).toBe(200);
  };

  beforeAll(async () => {
    issuer = await startOidcIssuer([REDIRECT]);
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    for (const providerId of ['corp-idp', 'second-idp']) {
      const created = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: providerBody(providerId) });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  it('links the victim to the account whose email the attacker set through the profile, and cuts the attacker off', async () => {
    // Prepare
    const attacker = await app.createUser('mallory', { email: 'mallory@evil.example' });
    const stolen = await app.login('mallory', USER_PASSWORD);
    await setOwnEmail(stolen.access, 'victim@corp.example');
    const users = await userCount();

    // Act
    const victim = await signIn('corp-idp', { sub: 'victim-sub', email: 'victim@corp.example', email_verified: true });

    // Assess
    expect(victim.status).toBe(200);
    expect(victim.body.user).toEqual({ uuid: attacker.uuid, username: 'mallory', email: 'victim@corp.example' });
    expect(await userCount()).toBe(users);
    expect(await profileStatus(stolen.access)).toBe(401);
    expect(await refreshStatus(stolen.refresh)).toBe(401);
    expect(await passwordStatus('mallory', USER_PASSWORD)).toBe(401);
    const profile = await app.request('GET', '/api/profile/', { token: victim.body.access });
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe('victim@corp.example');
    expect(profile.body).not.toHaveProperty('email_verified');
    const again = await signIn('corp-idp', { sub: 'victim-sub', email: 'victim@corp.example', email_verified: true });
    expect(again.status).toBe(200);
    expect(again.body.user.uuid).toBe(attacker.uuid);
    expect(await profileStatus(again.body.access)).toBe(200);
  });

  it("cuts off an account made by the inviter accepting their own invitation to the victim's address", async () => {
    // Prepare
    await app.createUser('inviter');
    const inviter = await app.tokenOf('inviter');
    const org = await app.request('POST', '/api/cloud/organizations/', { token: inviter, body: { name: 'Bait Org' } });
    const invitation = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/invitations/`, {
      token: inviter,
      body: { invitee_identifier: 'victim2@corp.example' },
    });
    expect(invitation.status).toBe(201);
    const accepted = await app.request('POST', `/api/cloud/invitations/${invitation.body.uuid}/accept/`, {
      body: { username: 'bait-account', password: 'bait-account-password-1' },
    });
    expect(accepted.status).toBe(200);
    const stolen = await app.login('bait-account', 'bait-account-password-1');

    // Act
    const victim = await signIn('corp-idp', { sub: 'victim2-sub', email: 'victim2@corp.example', email_verified: true });

    // Assess
    expect(victim.status).toBe(200);
    expect(victim.body.user.username).toBe('bait-account');
    expect(await profileStatus(stolen.access)).toBe(401);
    expect(await passwordStatus('bait-account', 'bait-account-password-1')).toBe(401);
    expect(await profileStatus(victim.body.access)).toBe(200);
  });

  it("removes the account's link to another platform provider", async () => {
    // Prepare: the attacker's own verified account, then the victim's address on it.
    const own = await signIn('second-idp', { sub: 'mallory-2nd', email: 'mallory.own@evil.example', email_verified: true });
    expect(own.status).toBe(200);
    await setOwnEmail(own.body.access, 'victim3@corp.example');

    // Act
    const victim = await signIn('corp-idp', { sub: 'victim3-sub', email: 'victim3@corp.example', email_verified: true });
    const attackerAgain = await signIn('second-idp', { sub: 'mallory-2nd', email: 'mallory.own@evil.example', email_verified: true });

    // Assess
    expect(victim.status).toBe(200);
    expect(victim.body.user.uuid).toBe(own.body.user.uuid);
    expect(await profileStatus(own.body.access)).toBe(401);
    // The old link is gone: the attacker's subject gets an account of its own, not the victim's.
    expect(attackerAgain.status).toBe(200);
    expect(attackerAgain.body.user.uuid).not.toBe(victim.body.user.uuid);
    expect(await profileStatus(victim.body.access)).toBe(200);
  });

  it("removes the account's link to the site provider that made it", async () => {
    // Prepare: a site owner's provider vouches for the victim's address and so makes an account.
    await app.createUser('shop-owner');
    const shop = await createSite(app, await app.tokenOf('shop-owner'), 'Bait Shop');
    const created = await app.request('POST', '/api/auth/social-apps/', {
      token: await app.tokenOf('shop-owner'),
      headers: shop.headers,
      body: providerBody('shop-idp'),
    });
    expect(created.status).toBe(201);
    const planted = await signIn('shop-idp', { sub: 'shop-sub', email: 'victim4@corp.example', email_verified: true }, shop.headers);
    expect(planted.status).toBe(200);

    // Act
    const victim = await signIn('corp-idp', { sub: 'victim4-sub', email: 'victim4@corp.example', email_verified: true });
    const attackerAgain = await signIn('shop-idp', { sub: 'shop-sub', email: 'victim4@corp.example', email_verified: true }, shop.headers);

    // Assess
    expect(victim.status).toBe(200);
    expect(victim.body.user.uuid).toBe(planted.body.user.uuid);
    expect(await profileStatus(planted.body.access)).toBe(401);
    expect(attackerAgain.status).toBe(409);
    expect(attackerAgain.body).not.toHaveProperty('access');
    expect(await profileStatus(victim.body.access)).toBe(200);
  });

  it('keeps the password and tokens of a user who verified the email through a provider before', async () => {
    // Prepare: the first provider sign-in proves the email (and cuts the unproven account's password);
    // an administrator then sets a password, which leaves the email as it is.
    await app.createUser('vera', { email: 'vera@corp.example' });
    const first = await signIn('corp-idp', { sub: 'vera-sub', email: 'vera@corp.example', email_verified: true });
    expect(first.status).toBe(200);
    const reset = await app.request('PATCH', '/api/cloud/users/vera/', { token: admin, body: { password: 'vera-new-password-1' } });
    expect(reset.status).toBe(200);
    const session = await app.login('vera', 'vera-new-password-1');

    // Act
    const sameProvider = await signIn('corp-idp', { sub: 'vera-sub', email: 'vera@corp.example', email_verified: true });
    const otherProvider = await signIn('second-idp', { sub: 'vera-2nd', email: 'vera@corp.example', email_verified: true });

    // Assess
    expect(sameProvider.status).toBe(200);
    expect(otherProvider.status).toBe(200);
    expect(otherProvider.body.user.uuid).toBe(first.body.user.uuid);
    expect(await passwordStatus('vera', 'vera-new-password-1')).toBe(200);
    expect(await profileStatus(session.access)).toBe(200);
    expect(await refreshStatus(session.refresh)).toBe(200);
  });

  it('counts an email set by an administrator as unproven', async () => {
    // Prepare
    const own = await signIn('corp-idp', { sub: 'adele-sub', email: 'adele@corp.example', email_verified: true });
    expect(own.status).toBe(200);
    const changed = await app.request('PATCH', `/api/cloud/users/${own.body.user.username}/`, {
      token: admin,
      body: { email: 'adele.new@corp.example' },
    });
    expect(changed.status).toBe(200);

    // Act
    const claimant = await signIn('second-idp', { sub: 'adele-new-sub', email: 'adele.new@corp.example', email_verified: true });

    // Assess
    expect(claimant.status).toBe(200);
    expect(claimant.body.user.uuid).toBe(own.body.user.uuid);
    expect(await profileStatus(own.body.access)).toBe(401);
  });

  it('proves a changed email again when the linked provider vouches for it', async () => {
    // Prepare
    const own = await signIn('corp-idp', { sub: 'nora-sub', email: 'nora@corp.example', email_verified: true });
    await setOwnEmail(own.body.access, 'nora@new.example');
    const vouched = await signIn('corp-idp', { sub: 'nora-sub', email: 'nora@new.example', email_verified: true });
    expect(vouched.status).toBe(200);

    // Act
    const otherProvider = await signIn('second-idp', { sub: 'nora-2nd', email: 'nora@new.example', email_verified: true });

    // Assess
    expect(otherProvider.status).toBe(200);
    expect(otherProvider.body.user.uuid).toBe(own.body.user.uuid);
    expect(await profileStatus(own.body.access)).toBe(200);
    expect(await profileStatus(vouched.body.access)).toBe(200);
  });
});
