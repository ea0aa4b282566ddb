// The role holes a probe found: roles given to users outside the site's organization (a username
// oracle, their emails in role lists, their access), roles still counting after their holder left the
// organization, a role holder raising the roles they hold by editing them, and re-assigning an
// expired membership changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('role probe fixes', () => {
  let app: TestApp;
  let admin: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  let schema: string;
  const tokens: Record<string, string> = {};
  const call = (method: string, path: string, body?: unknown, token = admin) =>
    app.request(method, path, { token, body, headers: site.headers });
  const as = (name: string, method: string, path: string, body?: unknown) => call(method, path, body, tokens[name]);
  const join = (username: string) =>
    app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, { token: admin, body: { user_slug: username } });
  const membershipRows = async (username: string) =>
    app.runtime.db.rows<{ expires_at: string | null }>(
      sql.raw(
        `select m.expires_at from "${schema}".role_memberships m join platform.users u on u.id = m.user_id where u.username = '${username}'`,
      ),
    );

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Role Probe');
    const other = await createSite(app, admin, 'Role Probe Other');
    const names = ['usermgr', 'stranger', 'roleonly', 'member', 'editor', 'renewed'];
    for (const name of names) await app.createUser(name);
    for (const name of ['usermgr', 'roleonly', 'member', 'editor', 'renewed']) expect((await join(name)).status).toBe(201);
    const stranger = await app.request('POST', `/api/cloud/organizations/${other.organization}/members/`, {
      token: admin,
      body: { user_slug: 'stranger' },
    });
    expect(stranger.status).toBe(201);
    const granted = await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: admin,
      body: {
        users: [
          { username: 'usermgr', permissions: ['manage_site_users'] },
          { username: 'editor', permissions: ['manage_site', 'view_site'] },
        ],
      },
    });
    expect(granted.status).toBe(200);
    for (const name of names) tokens[name] = (await app.login(name, USER_PASSWORD)).access;
    expect((await call('POST', '/api/apps/', { name: 'App One' })).status).toBe(201);
    for (const body of [
      { name: 'Viewer', permissions: ['view_site'] },
      { name: 'Manager', permissions: ['manage_site'] },
      { name: 'Writer', permissions: ['access_site'] },
      { name: 'Plain', permissions: [] },
    ])
      expect((await call('POST', '/api/app/app-one/roles', body)).status).toBe(201);
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    schema = row!.schema_name;
  });
  afterAll(async () => {
    await app.close();
  });

  describe('users outside the organization', () => {
    it("answers another organization's user exactly as a user who does not exist, and gives them nothing", async () => {
      const answer = await as('usermgr', 'POST', '/api/assign/roles', {
        roles: ['app-one-viewer'],
        usernames: ['stranger', 'nosuchuser', 'member'],
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'partial_success' });
      const failures = answer.body.data.failures as Array<{ username: string; error: string }>;
      expect(failures).toHaveLength(2);
      const byName = Object.fromEntries(failures.map((failure) => [failure.username, failure.error]));
      expect(byName.stranger).toBe(byName.nosuchuser);
      expect(await membershipRows('stranger')).toEqual([]);
      expect((await as('stranger', 'GET', '/api/apps/app-one/')).status).toBe(403);
    });

    it("refuses another organization's user on a role's users as it refuses an unknown one (400, nothing changed)", async () => {
      const stranger = await as('usermgr', 'POST', '/api/roles/app-one-plain/users', { usernames: ['stranger'] });
      const unknown = await as('usermgr', 'POST', '/api/roles/app-one-plain/users', { usernames: ['nosuchuser'] });
      expect(stranger.status).toBe(400);
      expect(JSON.stringify(stranger.body).replace('stranger', 'X')).toBe(JSON.stringify(unknown.body).replace('nosuchuser', 'X'));
      expect(await membershipRows('stranger')).toEqual([]);
    });

    it('stops counting a role once its holder leaves the organization', async () => {
      expect((await call('POST', '/api/assign/roles', { roles: ['app-one-manager'], usernames: ['roleonly'] })).status).toBe(200);
      expect((await as('roleonly', 'GET', '/api/apps/app-one/datasources/')).status).toBe(200);
      const removed = await app.request('DELETE', `/api/cloud/organizations/${site.organization}/members/roleonly/`, { token: admin });
      expect(removed.status).toBe(204);
      expect((await as('roleonly', 'POST', '/api/apps/app-one/datasources/', { name: 'Left', provider_type: 'flat_table' })).status).toBe(
        403,
      );
      expect((await as('roleonly', 'GET', '/api/apps/app-one/')).status).toBe(403);
      // The membership left behind can still be taken away.
      expect((await call('DELETE', '/api/revoke/roles', { roles: ['app-one-manager'], usernames: ['roleonly'] })).status).toBe(200);
      expect(await membershipRows('roleonly')).toEqual([]);
      expect((await join('roleonly')).status).toBe(201);
    });
  });

  describe("emails in a role's users", () => {
    it("shows a holder's email only to a caller who may read it", async () => {
      expect((await call('POST', '/api/assign/roles', { roles: ['app-one-plain'], usernames: ['member'] })).status).toBe(200);
      const seen = await as('usermgr', 'GET', '/api/roles/app-one-plain/users');
      expect(seen.status).toBe(200);
      expect(seen.body.data).toEqual([expect.objectContaining({ username: 'member', email: null })]);
      expect((await as('usermgr', 'GET', '/api/roles/app-one-plain/users?search=member@example')).body.data).toEqual([]);
      const byAdmin = await call('GET', '/api/roles/app-one-plain/users');
      expect(byAdmin.body.data).toEqual([expect.objectContaining({ username: 'member', email: 'member@example.com' })]);
    });
  });

  describe('editing roles', () => {
    it('refuses a role holder without manage_site on the site raising a role they hold (403, nothing changed)', async () => {
      expect(
        (await call('POST', '/api/assign/roles', { roles: ['app-one-viewer', 'app-one-manager'], usernames: ['roleonly'] })).status,
      ).toBe(200);
      const raised = await as('roleonly', 'PUT', '/api/app/app-one/roles/app-one-viewer', { permissions: ['manage_site', 'access_site'] });
      expect(raised.status).toBe(403);
      expect(raised.body.code).toBe('PERMISSION_DENIED');
      expect((await call('GET', '/api/app/app-one/roles/app-one-viewer')).body.permissions).toEqual(['view_site']);
      expect((await call('DELETE', '/api/revoke/roles', { roles: ['app-one-manager'], usernames: ['roleonly'] })).status).toBe(200);
      const kept = await as('roleonly', 'POST', '/api/apps/app-one/datasources/', { name: 'Kept', provider_type: 'flat_table' });
      expect(kept.status).toBe(403);
      expect(kept.body.code).toBe('PERMISSION_DENIED');
    });

    it('refuses a manage_site holder editing a role they hold, or granting what they do not hold', async () => {
      expect((await call('POST', '/api/assign/roles', { roles: ['app-one-viewer'], usernames: ['editor'] })).status).toBe(200);
      const own = await as('editor', 'PUT', '/api/app/app-one/roles/app-one-viewer', { permissions: ['view_site', 'manage_site'] });
      expect(own.status).toBe(403);
      const under = await as('editor', 'PUT', '/api/app/app-one/roles/app-one-writer', { parent_role_slug: 'app-one-viewer' });
      expect(under.status).toBe(403);
      const beyond = await as('editor', 'PUT', '/api/app/app-one/roles/app-one-plain', { permissions: ['access_site'] });
      expect(beyond.status).toBe(403);
      expect(beyond.body.code).toBe('PERMISSION_DENIED');
      const site = await as('editor', 'POST', '/api/roles/', { name: 'Writers', role_slugs: ['app-one-writer'] });
      expect(site.status).toBe(403);
      expect((await call('GET', '/api/app/app-one/roles/app-one-plain')).body.permissions).toEqual([]);
      expect((await call('GET', '/api/app/app-one/roles/app-one-writer')).body.parent_role_slug).toBeNull();
      const within = await as('editor', 'PUT', '/api/app/app-one/roles/app-one-plain', { permissions: ['manage_site'] });
      expect(within.status).toBe(200);
    });
  });

  describe('re-assigning an expired membership', () => {
    it('renews it with the new expiry, or none', async () => {
      expect((await call('POST', '/api/assign/roles', { roles: ['app-one-viewer'], usernames: ['renewed'] })).status).toBe(200);
      await app.runtime.db.run(
        sql.raw(
          `update "${schema}".role_memberships set expires_at = now() - interval '1 day' where user_id = (select id from platform.users where username = 'renewed')`,
        ),
      );
      expect((await as('renewed', 'GET', '/api/apps/app-one/')).status).toBe(403);
      expect((await call('POST', '/api/assign/roles', { roles: ['app-one-viewer'], usernames: ['renewed'] })).status).toBe(200);
      expect(await membershipRows('renewed')).toEqual([{ expires_at: null }]);
      expect((await as('renewed', 'GET', '/api/apps/app-one/')).status).toBe(200);
    });
  });
});
