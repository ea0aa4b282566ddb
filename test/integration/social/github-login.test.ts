// GitHub sign-in (OAuth 2 without OpenID Connect) end to end against a GitHub stand-in on loopback:
// authorization code with state and PKCE, the account and its primary email from the API, linking
// by verified email only, and every refusal leaving nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { GITHUB_CLIENT, startGithubStandIn, type GithubStandIn } from '#test/support/github-stand-in.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const REDIRECT = 'https://app.example.test/github-callback';

describe('GitHub sign-in', () => {
  let app: TestApp;
  let github: GithubStandIn;
  let admin: string;

  const githubApp = (providerId: string, settings: Record<string, unknown>, secret = GITHUB_CLIENT.secret) => ({
    provider: 'github',
    provider_id: providerId,
    name: providerId || 'GitHub',
    client_id: GITHUB_CLIENT.id,
    secret,
    settings: { ...settings, redirect_uris: [REDIRECT] },
  });
  const start = (provider: string) =>
    app.request('GET', `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(REDIRECT)}`, {
      headers: { accept: 'application/json' },
    });
  const finish = (provider: string, body: Record<string, string>) =>
    app.request('POST', `/api/auth/${provider}/token/`, { body: { redirect_uri: REDIRECT, ...body } });
  const counts = async () => {
    const [row] = await app.runtime.db.rows<{ users: number; accounts: number }>(sql`select
      (select count(*)::int from platform.users) as users, (select count(*)::int from platform.social_accounts) as accounts`);
    return row!;
  };
  async function callback(provider = 'github', stand: GithubStandIn = github) {
    const started = await start(provider);
    expect(started.status).toBe(200);
    return stand.authorize(started.body.authorization_url);
  }

  beforeAll(async () => {
    github = await startGithubStandIn();
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    const created = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: githubApp('', github.settings) });
    expect(created.status).toBe(201);
    await app.createUser('octo-existing', { email: 'octo.existing@example.com' });
  });
  afterAll(async () => {
    await app.close();
    await github.close();
  });

  it('sends the browser to the authorization endpoint with state and PKCE, without a nonce', async () => {
    const started = await start('github');
    const url = new URL(started.body.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(github.settings.authorization_url);
    expect(url.searchParams.get('client_id')).toBe(GITHUB_CLIENT.id);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBe(started.body.state);
    expect(url.searchParams.get('scope')).toBe('read:user user:email');
    expect(url.searchParams.has('nonce')).toBe(false);
  });

  it('creates a user for a verified primary email and signs the same account in again', async () => {
    github.signInAs({
      id: 5001,
      login: 'Octo-Cat',
      name: 'Octo Cat Person',
      emails: [
        { email: 'other@example.com', primary: false, verified: true },
        { email: 'octo.cat@example.com', primary: true, verified: true },
      ],
    });
    const first = await finish('github', await callback());
    expect(first.status).toBe(200);
    expect(first.body.user).toMatchObject({ username: 'octo-cat', email: 'octo.cat@example.com' });
    const me = await app.request('GET', '/api/cloud/users/octo-cat/', { token: first.body.access });
    expect(me.body).toMatchObject({ first_name: 'Octo', last_name: 'Cat Person' });
    // The account id is the subject: a changed email still signs in the same user.
    github.signInAs({ id: 5001, login: 'octo-cat', emails: [{ email: 'new@example.com', primary: true, verified: true }] });
    const again = await finish('github', await callback());
    expect(again.body.user.username).toBe('octo-cat');
  });

  it('links an existing user by verified primary email instead of creating one', async () => {
    const before = await counts();
    github.signInAs({ id: 5002, login: 'someone', emails: [{ email: 'OCTO.EXISTING@example.com', primary: true, verified: true }] });
    const answer = await finish('github', await callback());
    expect(answer.status).toBe(200);
    expect(answer.body.user.username).toBe('octo-existing');
    expect(await counts()).toEqual({ users: before.users, accounts: before.accounts + 1 });
  });

  it('refuses an unverified primary email, even beside a verified other one, and creates nothing', async () => {
    const before = await counts();
    github.signInAs({
      id: 5003,
      login: 'taker',
      emails: [
        { email: 'octo.existing@example.com', primary: true, verified: false },
        { email: 'taker@example.com', primary: false, verified: true },
      ],
    });
    const answer = await finish('github', await callback());
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/verif/);
    github.signInAs({ id: 5004, login: 'no-mail', emails: [] });
    expect((await finish('github', await callback())).status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('refuses an account without an id', async () => {
    const before = await counts();
    github.signInAs({ id: '', login: 'ghost', emails: [{ email: 'ghost@example.com', primary: true, verified: true }] });
    const answer = await finish('github', await callback());
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/account id/);
    expect(await counts()).toEqual(before);
  });

  it('refuses a replayed state, a made-up state and a foreign redirect, and creates nothing', async () => {
    github.signInAs({ id: 5005, login: 'replayer', emails: [{ email: 'replayer@example.com', primary: true, verified: true }] });
    const used = await callback();
    expect((await finish('github', used)).status).toBe(200);
    const before = await counts();
    expect((await finish('github', used)).status).toBe(400);
    expect((await finish('github', { code: used.code, state: 'made-up-state' })).status).toBe(400);
    const fresh = await callback();
    expect((await finish('github', { ...fresh, redirect_uri: 'https://evil.example.test/cb' })).status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('answers 400 when GitHub refuses the client secret', async () => {
    await app.request('POST', '/api/auth/social-apps/', {
      token: admin,
      body: githubApp('github-wrong', github.settings, 'not-the-secret'),
    });
    const before = await counts();
    const answer = await finish('github-wrong', await callback('github-wrong'));
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/refused.*invalid_client/);
    expect(await counts()).toEqual(before);
  });

  it('answers 502 and creates nothing when GitHub is down', async () => {
    const down = await startGithubStandIn();
    await app.request('POST', '/api/auth/social-apps/', { token: admin, body: githubApp('github-down', down.settings) });
    down.signInAs({ id: 5006, login: 'late', emails: [{ email: 'late@example.com', primary: true, verified: true }] });
    const pending = await callback('github-down', down);
    await down.close();
    const before = await counts();
    const answer = await finish('github-down', pending);
    expect(answer.status).toBe(502);
    expect(answer.body.code).toBe('BAD_GATEWAY');
    expect(await counts()).toEqual(before);
  });

  it('refuses endpoint settings that are not http(s) URLs', async () => {
    const answer = await app.request('POST', '/api/auth/social-apps/', {
      token: admin,
      body: githubApp('github-bad', { api_url: 'file:///etc/passwd', token_url: 42 }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors.settings.join(' ')).toMatch(/api_url.*token_url|token_url.*api_url/s);
  });
});
