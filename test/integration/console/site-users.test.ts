// The user↔site relations in both directions: Envelope B answers, default view_site, atomic PUT
// replace, DELETE bodies, permission codename checks, cross-organization denial and the
// view-but-not-modify rule for one's own assignments.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`user↔site relations on ${testDriver}`, () => {
  let app: TestApp;
  let admin: string;
  const token: Record<string, string> = {};

  // node:http sends no body length for DELETE unless told, so the body would be dropped on the way.
  const withBody = (tokenValue: string | undefined, body: unknown) => ({
    token: tokenValue,
    body,
    headers: { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) },
  });

  const held = async (username: string) =>
    app.runtime.db.rows<{ site: string; codename: string }>(sql`
      select s.slug as site, p.codename from platform.site_user_permissions sup
      join platform.sites s on s.id = sup.site_id join platform.users u on u.id = sup.user_id
      join platform.permissions p on p.id = sup.permission_id
      where u.username = ${username} order by s.slug, p.codename`);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const names = ['su-admin', 'su-one', 'su-two', 'su-beta-admin', 'su-beta-one'];
    for (const name of names) await app.createUser(name, { first_name: 'First', last_name: name });
    const db = app.runtime.db;
    await db.run(sql`insert into platform.organizations (name, slug) values ('Alpha', 'alpha'), ('Beta', 'beta')`);
    await db.run(sql`
      insert into platform.organization_members (organization_id, user_id, is_admin)
      select o.id, u.id, u.username like '%admin' from platform.organizations o, platform.users u
      where (o.slug = 'alpha' and u.username in ('su-admin', 'su-one', 'su-two'))
         or (o.slug = 'beta' and u.username in ('su-beta-admin', 'su-beta-one'))`);
    for (const name of names) token[name] = (await app.login(name, USER_PASSWORD)).access;
    for (const [org, who, site] of [
      ['alpha', 'su-admin', 'Alpha One'],
      ['alpha', 'su-admin', 'Alpha Two'],
      ['beta', 'su-beta-admin', 'Beta One'],
    ] as const) {
      const created = await app.request('POST', `/api/cloud/organizations/${org}/sites/`, { token: token[who], body: { name: site } });
      if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    }
  });
  afterAll(async () => {
    await app.close();
  });

  describe('user → sites', () => {
    const path = '/api/cloud/users/su-one/sites/';

    it('adds a site with view_site by default and answers in Envelope B', async () => {
      const answer = await app.request('POST', path, { token: token['su-admin'], body: { sites: [{ slug: 'alpha-one' }] } });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        success: true,
        total: 1,
        data: [{ slug: 'alpha-one', name: 'Alpha One', permissions: ['view_site'] }],
      });
      expect(typeof answer.body.message).toBe('string');
    });

    it('adds without removing others, merging permissions', async () => {
      const answer = await app.request('POST', '/api/users/su-one/sites/', {
        token: token['su-admin'],
        body: {
          sites: [
            { slug: 'alpha-two', permissions: ['manage_site', 'access_site'] },
            { slug: 'alpha-one', permissions: ['access_site'] },
          ],
        },
      });

      expect(answer.status).toBe(200);
      expect(await held('su-one')).toEqual([
        { site: 'alpha-one', codename: 'access_site' },
        { site: 'alpha-one', codename: 'view_site' },
        { site: 'alpha-two', codename: 'access_site' },
        { site: 'alpha-two', codename: 'manage_site' },
      ]);
    });

    it('lists with search, name and name__contains', async () => {
      const all = await app.request('GET', path, { token: token['su-admin'] });
      const searched = await app.request('GET', `${path}?search=TWO`, { token: token['su-admin'] });
      const exact = await app.request('GET', `${path}?name=Alpha%20One`, { token: token['su-admin'] });
      const contains = await app.request('GET', `${path}?name__contains=one`, { token: token['su-admin'] });

      expect(all.body).toMatchObject({ success: true, total: 2 });
      expect(all.body.data.map((site: { slug: string }) => site.slug)).toEqual(['alpha-one', 'alpha-two']);
      expect(searched.body.data.map((site: { slug: string }) => site.slug)).toEqual(['alpha-two']);
      expect(exact.body.data).toEqual([{ slug: 'alpha-one', name: 'Alpha One', permissions: ['access_site', 'view_site'] }]);
      expect(contains.body.total).toBe(1);
    });

    it('refuses a permission that is not a site permission, naming it (400)', async () => {
      const answer = await app.request('POST', path, {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-one', permissions: ['view_site', 'fly_rockets'] }] },
      });

      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, status_code: 400, code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(answer.body.errors)).toContain('fly_rockets');
    });

    it('replaces every assignment atomically with PUT, and leaves them untouched when one site is bad', async () => {
      const failed = await app.request('PUT', path, {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-two', permissions: ['admin_site'] }, { slug: 'no-such-site' }] },
      });
      expect(failed.status).toBe(404);
      expect(failed.body.success).toBe(false);
      expect(await held('su-one')).toHaveLength(4);

      const replaced = await app.request('PUT', path, {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-two', permissions: ['admin_site'] }] },
      });

      expect(replaced.status).toBe(200);
      expect(replaced.body.data).toEqual([{ slug: 'alpha-two', name: 'Alpha Two', permissions: ['admin_site'] }]);
      expect(await held('su-one')).toEqual([{ site: 'alpha-two', codename: 'admin_site' }]);
    });

    it('clears every assignment with an empty PUT', async () => {
      const answer = await app.request('PUT', path, { token: token['su-admin'], body: { sites: [] } });

      expect(answer.body).toMatchObject({ success: true, total: 0, data: [] });
      expect(await held('su-one')).toEqual([]);
    });

    it('removes the named sites with DELETE', async () => {
      await app.request('POST', path, { token: token['su-admin'], body: { sites: [{ slug: 'alpha-one' }, { slug: 'alpha-two' }] } });

      const answer = await app.request('DELETE', path, withBody(token['su-admin'], { sites: ['alpha-one'] }));

      expect(answer.status).toBe(200);
      expect(await held('su-one')).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('lets users view their own assignments but not change them', async () => {
      const view = await app.request('GET', path, { token: token['su-one'] });
      const add = await app.request('POST', path, { token: token['su-one'], body: { sites: [{ slug: 'alpha-one' }] } });
      const clear = await app.request('PUT', path, { token: token['su-one'], body: { sites: [] } });
      const remove = await app.request('DELETE', path, withBody(token['su-one'], { sites: ['alpha-two'] }));
      const other = await app.request('GET', '/api/cloud/users/su-two/sites/', { token: token['su-one'] });

      expect(view.status).toBe(200);
      expect(view.body.total).toBe(1);
      for (const answer of [add, clear, remove]) {
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ success: false, status_code: 403 });
      }
      expect(other.status).toBe(404);
      expect(await held('su-one')).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('denies cross-organization assignment', async () => {
      // An Alpha admin cannot see Beta's site, nor Beta's users.
      const foreignSite = await app.request('POST', path, { token: token['su-admin'], body: { sites: [{ slug: 'beta-one' }] } });
      const foreignUser = await app.request('POST', '/api/cloud/users/su-beta-one/sites/', {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-one' }] },
      });
      // Even a superuser cannot give a site to someone outside its organization.
      const bySuperuser = await app.request('POST', path, { token: admin, body: { sites: [{ slug: 'beta-one' }] } });

      expect(foreignSite.status).toBe(404);
      expect(foreignUser.status).toBe(404);
      expect(bySuperuser.status).toBe(403);
      expect(bySuperuser.body.message).toMatch(/cross-organization/);
      expect(await held('su-beta-one')).toEqual([]);
      expect(await held('su-one')).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('scopes a PUT by an organization admin to the sites they manage', async () => {
      // su-one also belongs to Beta and holds a Beta site; the Alpha admin's PUT must not touch it.
      await app.runtime.db.run(sql`
        insert into platform.organization_members (organization_id, user_id)
        select o.id, u.id from platform.organizations o, platform.users u where o.slug = 'beta' and u.username = 'su-one'`);
      const given = await app.request('POST', path, { token: token['su-beta-admin'], body: { sites: [{ slug: 'beta-one' }] } });
      expect(given.status).toBe(200);

      const answer = await app.request('PUT', path, { token: token['su-admin'], body: { sites: [] } });

      expect(answer.body).toMatchObject({ success: true, total: 0 });
      expect(await held('su-one')).toEqual([{ site: 'beta-one', codename: 'view_site' }]);
      const own = await app.request('GET', path, { token: token['su-one'] });
      expect(own.body.data.map((site: { slug: string }) => site.slug)).toEqual(['beta-one']);
    });
  });

  describe('site → users', () => {
    const path = '/api/cloud/sites/alpha-one/users/';

    it('adds users with default view_site and answers their username, email, name and permissions', async () => {
      const answer = await app.request('POST', path, {
        token: token['su-admin'],
        body: { users: [{ username: 'su-one' }, { username: 'su-two', permissions: ['manage_site_users'] }] },
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, total: 2 });
      expect(answer.body.data).toEqual([
        { username: 'su-one', email: 'su-one@example.com', name: 'First su-one', permissions: ['view_site'] },
        { username: 'su-two', email: 'su-two@example.com', name: 'First su-two', permissions: ['manage_site_users'] },
      ]);
    });

    it('lists with search; a member without manage_site_users sees only themselves', async () => {
      const searched = await app.request('GET', `${path}?search=SU-TWO`, { token: token['su-admin'] });
      const asMember = await app.request('GET', path, { token: token['su-one'] });

      expect(searched.body.data.map((user: { username: string }) => user.username)).toEqual(['su-two']);
      expect(asMember.status).toBe(200);
      expect(asMember.body.data.map((user: { username: string }) => user.username)).toEqual(['su-one']);
    });

    it('lets a manage_site_users holder assign others but not change their own assignment', async () => {
      const others = await app.request('PUT', path, {
        token: token['su-two'],
        body: { users: [{ username: 'su-one', permissions: ['access_site'] }] },
      });
      const self = await app.request('POST', path, {
        token: token['su-two'],
        body: { users: [{ username: 'su-two', permissions: ['admin_site'] }] },
      });
      const plain = await app.request('POST', path, { token: token['su-one'], body: { users: [{ username: 'su-two' }] } });

      expect(others.status).toBe(200);
      expect(self.status).toBe(403);
      expect(plain.status).toBe(403);
      expect((await held('su-one')).filter((row) => row.site === 'alpha-one')).toEqual([{ site: 'alpha-one', codename: 'access_site' }]);
      expect((await held('su-two')).filter((row) => row.site === 'alpha-one')).toEqual([
        { site: 'alpha-one', codename: 'manage_site_users' },
      ]);
    });

    it('denies users outside the organization, unknown ones alike, and leaves the site unchanged', async () => {
      const before = await app.request('GET', path, { token: token['su-admin'] });
      const foreign = await app.request('PUT', path, { token: token['su-admin'], body: { users: [{ username: 'su-beta-admin' }] } });
      const unknown = await app.request('POST', path, { token: token['su-admin'], body: { users: [{ username: 'nobody-at-all' }] } });
      const foreignSite = await app.request('POST', '/api/cloud/sites/beta-one/users/', {
        token: token['su-admin'],
        body: { users: [{ username: 'su-two' }] },
      });

      expect(foreign.status).toBe(403);
      expect(unknown.status).toBe(403);
      expect(foreign.body.success).toBe(false);
      expect(foreignSite.status).toBe(404);
      const after = await app.request('GET', path, { token: token['su-admin'] });
      expect(after.body.data).toEqual(before.body.data);
    });

    it('replaces atomically with PUT and removes with DELETE', async () => {
      const replaced = await app.request('PUT', path, { token: token['su-admin'], body: { users: [{ username: 'su-one' }] } });
      expect(replaced.body.data.map((user: { username: string }) => user.username)).toEqual(['su-one']);

      const removed = await app.request('DELETE', path, withBody(token['su-admin'], { users: ['su-one'] }));
      const badBody = await app.request('DELETE', path, withBody(token['su-admin'], { users: [] }));

      expect(removed.body).toMatchObject({ success: true, total: 0, data: [] });
      expect(badBody.status).toBe(400);
      expect(badBody.body.success).toBe(false);
      expect((await held('su-one')).filter((row) => row.site === 'alpha-one')).toEqual([]);
    });
  });
});
