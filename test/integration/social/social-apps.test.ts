// Social apps: the platform's own providers on the platform host, a site's on its host; public
// list, masked secrets, the spec's validation errors, and delete refused while users are linked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type ApiResponse, type TestApp } from '#test/support/test-app.ts';

const google = {
  provider: 'google',
  name: 'Google',
  client_id: 'google-client',
  secret: 'google-secret-value',
  settings: { icon: 'https://cdn.example.test/google.svg', auto_redirect: true, scope: ['email'] },
};
const oidc = {
  provider: 'openid_connect',
  provider_id: 'corp-sso',
  name: 'Corporate SSO',
  client_id: 'corp-client',
  secret: 'corp-secret-value',
  settings: { server_url: 'https://sso.example.test/.well-known/openid-configuration' },
};

describe('social apps', () => {
  let app: TestApp;
  let admin: string;
  let owner: string;
  let member: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  // The platform's Google provider, made once for every test (its creation answer is checked below).
  let googleCreated: ApiResponse;
  let id: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    await app.createUser('owner');
    await app.createUser('member');
    owner = (await app.login('owner', USER_PASSWORD)).access;
    member = (await app.login('member', USER_PASSWORD)).access;
    site = await createSite(app, owner, 'Social Site');
    await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, { token: owner, body: { user_slug: 'member' } });
    await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: owner,
      body: { users: [{ username: 'member', permissions: ['admin_site'] }] },
    });
    googleCreated = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: google });
    id = googleCreated.body.data.id;
  });
  afterAll(async () => {
    await app.close();
  });

  describe('on the platform host', () => {
    it('creates a provider for a superuser and echoes the secret once', () => {
      expect(googleCreated.status).toBe(201);
      expect(googleCreated.body).toMatchObject({
        success: true,
        data: { provider: 'google', secret: 'google-secret-value', provider_display: 'Google', is_configured: true },
      });
    });

    it('lists providers publicly with settings flattened and no secrets', async () => {
      const list = await app.request('GET', '/api/auth/social-apps/');
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ success: true, total: 1, page: 1, page_size: 10, total_pages: 1 });
      expect(list.body.data[0]).toEqual({
        id,
        provider: 'google',
        provider_id: '',
        name: 'Google',
        provider_display: 'Google',
        is_configured: true,
        icon: 'https://cdn.example.test/google.svg',
        auto_redirect: true,
      });
      expect(JSON.stringify(list.body)).not.toContain('google-secret-value');
      expect((await app.request('GET', '/api/auth/social-apps/?search=nothing-like-it')).body.total).toBe(0);
      expect((await app.request('GET', '/api/auth/social-apps/?provider=google&page_size=500')).body.page_size).toBe(100);
    });

    it('masks the secret on detail and PATCH and keeps omitted fields', async () => {
      const detail = await app.request('GET', `/api/auth/social-apps/${id}/`, { token: member });
      expect(detail.body).toMatchObject({
        secret: '***HIDDEN***',
        settings: { icon: 'https://cdn.example.test/google.svg', auto_redirect: true },
      });
      expect((await app.request('GET', `/api/auth/social-apps/${id}/`)).status).toBe(401);
      const patched = await app.request('PATCH', `/api/auth/social-apps/${id}/`, { token: admin, body: { name: 'Google Workspace' } });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ name: 'Google Workspace', client_id: 'google-client', secret: '***HIDDEN***' });
      // Kept, and kept sealed (test/integration/social/social-app-secrets.test.ts opens it).
      const [row] = await app.runtime.db.rows<{ secret: string; sealed: string | null }>(
        sql`select secret, secret_sealed::text as sealed from platform.social_apps where id = ${id}`,
      );
      expect(row!.secret).toBe('');
      expect(row!.sealed).toMatch(/"ciphertext"/);
      // Back to its name, which the other tests expect.
      expect((await app.request('PATCH', `/api/auth/social-apps/${id}/`, { token: admin, body: { name: 'Google' } })).status).toBe(200);
    });

    it("refuses changes to the platform's providers to everyone but superusers", async () => {
      expect((await app.request('POST', '/api/auth/social-apps/', { token: owner, body: oidc })).status).toBe(403);
      expect((await app.request('PATCH', `/api/auth/social-apps/${id}/`, { token: owner, body: { name: 'x' } })).status).toBe(403);
      expect((await app.request('DELETE', `/api/auth/social-apps/${id}/`, { token: owner })).status).toBe(403);
      expect((await app.request('POST', '/api/auth/social-apps/', { body: oidc })).status).toBe(401);
    });

    it('answers the spec validation errors', async () => {
      const empty = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: {} });
      expect(empty.status).toBe(400);
      expect(empty.body).toMatchObject({
        success: false,
        errors: {
          provider: ['This field is required.'],
          name: ['This field is required.'],
          client_id: ['This field is required.'],
          secret: ['This field is required.'],
        },
      });
      const unknown = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: { ...google, provider: 'myspace' } });
      expect(unknown.body.errors.provider[0]).toContain('openid_connect');
      const noProviderId = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: { ...oidc, provider_id: '' } });
      expect(noProviderId.body.errors).toHaveProperty('provider_id');
      const noServer = await app.request('POST', '/api/auth/social-apps/', { token: admin, body: { ...oidc, settings: {} } });
      expect(noServer.body.errors).toHaveProperty('settings');
      const badPatch = await app.request('PATCH', `/api/auth/social-apps/${id}/`, { token: admin, body: { provider: 'openid_connect' } });
      expect(badPatch.status).toBe(400);
      expect((await app.request('POST', '/api/auth/social-apps/', { token: admin, body: { ...google, name: 'Again' } })).status).toBe(409);
    });
  });

  describe('on a tenant host', () => {
    let tenantId: number;

    beforeAll(async () => {
      const created = await app.request('POST', '/api/auth/social-apps/', { token: owner, headers: site.headers, body: oidc });
      expect(created.status).toBe(201);
      tenantId = created.body.data.id;
    });

    it("keeps a site's providers apart from the platform's", async () => {
      const tenantList = await app.request('GET', '/api/auth/social-apps/', { headers: site.headers });
      expect(tenantList.body.data.map((entry: { name: string }) => entry.name)).toEqual(['Corporate SSO']);
      const platformList = await app.request('GET', '/api/auth/social-apps/');
      expect(platformList.body.data.map((entry: { name: string }) => entry.name)).toEqual(['Google']);
      expect((await app.request('GET', '/api/auth/social-apps/', { headers: { 'x-tenant': 'no-such-site' } })).status).toBe(404);
    });

    it("lets only a superuser or an owner of the site's organization change them", async () => {
      expect(
        (await app.request('PATCH', `/api/auth/social-apps/${tenantId}/`, { token: member, headers: site.headers, body: { name: 'x' } }))
          .status,
      ).toBe(403);
      const changed = await app.request('PATCH', `/api/auth/social-apps/${tenantId}/`, {
        token: admin,
        headers: site.headers,
        body: { key: 'k' },
      });
      expect(changed.body.data).toMatchObject({ key: 'k', secret: '***HIDDEN***' });
    });

    it('refuses to delete a provider users sign in with, then deletes it once they are gone', async () => {
      const retiring = { ...oidc, provider_id: 'retiring-sso', name: 'Retiring SSO' };
      const created = await app.request('POST', '/api/auth/social-apps/', { token: owner, headers: site.headers, body: retiring });
      expect(created.status).toBe(201);
      const retiringId = created.body.data.id as number;
      const [row] = await app.runtime.db.rows<{ schema_name: string }>(
        sql`select schema_name from platform.sites where slug = ${site.slug}`,
      );
      const accounts = sql`${sql.identifier(row!.schema_name)}.social_accounts`;
      await app.runtime.db.run(sql`insert into ${accounts} (user_id, social_app_id, uid)
        select id, ${retiringId}, 'sub-' || id from platform.users where username in ('owner', 'member')`);
      const refused = await app.request('DELETE', `/api/auth/social-apps/${retiringId}/`, { token: owner, headers: site.headers });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ success: false, active_users: 2, suggestion: expect.any(String), message: expect.any(String) });
      await app.runtime.db.run(sql`delete from ${accounts}`);
      const deleted = await app.request('DELETE', `/api/auth/social-apps/${retiringId}/`, { token: owner, headers: site.headers });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ success: true });
      expect((await app.request('GET', `/api/auth/social-apps/${retiringId}/`, { token: owner, headers: site.headers })).status).toBe(404);
    });
  });
});
