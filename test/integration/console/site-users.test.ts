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

  // Every test makes the users (and sites) it reads, named with a number of its own, so the tests
  // pass in any order (--sequence.shuffle); the organizations and their first sites are shared.
  let made = 0;
  const fresh = (base: string) => `${base}-${String(++made).padStart(3, '0')}`;

  /** A new member of Alpha, signed in (`token[name]`). */
  async function alphaMember(): Promise<string> {
    const name = fresh('su-member');
    await app.createUser(name, { first_name: 'First', last_name: name });
    await app.runtime.db.run(sql`
      insert into platform.organization_members (organization_id, user_id)
      select o.id, u.id from platform.organizations o, platform.users u where o.slug = 'alpha' and u.username = ${name}`);
    token[name] = (await app.login(name, USER_PASSWORD)).access;
    return name;
  }

  /** A new site of Alpha, made by its admin. */
  async function alphaSite(): Promise<string> {
    const created = await app.request('POST', '/api/cloud/organizations/alpha/sites/', {
      token: token['su-admin'],
      body: { name: fresh('Alpha Site') },
    });
    expect(created.status).toBe(201);
    return created.body.slug;
  }

  /** Gives the user these sites, as Alpha's admin. */
  async function assign(username: string, sites: Array<{ slug: string; permissions?: string[] }>): Promise<void> {
    const answer = await app.request('POST', `/api/cloud/users/${username}/sites/`, { token: token['su-admin'], body: { sites } });
    expect(answer.status).toBe(200);
  }

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
    const pathOf = (username: string) => `/api/cloud/users/${username}/sites/`;

    it('adds a site with view_site by default and answers in Envelope B', async () => {
      const user = await alphaMember();
      const answer = await app.request('POST', pathOf(user), { token: token['su-admin'], body: { sites: [{ slug: 'alpha-one' }] } });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        success: true,
        total: 1,
        data: [{ slug: 'alpha-one', name: 'Alpha One', permissions: ['view_site'] }],
      });
      expect(typeof answer.body.message).toBe('string');
    });

    it('adds without removing others, merging permissions', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-one' }]);
      const answer = await app.request('POST', `/api/users/${user}/sites/`, {
        token: token['su-admin'],
        body: {
          sites: [
            { slug: 'alpha-two', permissions: ['manage_site', 'access_site'] },
            { slug: 'alpha-one', permissions: ['access_site'] },
          ],
        },
      });

      expect(answer.status).toBe(200);
      expect(await held(user)).toEqual([
        { site: 'alpha-one', codename: 'access_site' },
        { site: 'alpha-one', codename: 'view_site' },
        { site: 'alpha-two', codename: 'access_site' },
        { site: 'alpha-two', codename: 'manage_site' },
      ]);
    });

    it('lists with search, name and name__contains', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-one', permissions: ['access_site', 'view_site'] }, { slug: 'alpha-two' }]);
      const path = pathOf(user);
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
      const user = await alphaMember();
      const answer = await app.request('POST', pathOf(user), {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-one', permissions: ['view_site', 'fly_rockets'] }] },
      });

      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, status_code: 400, code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(answer.body.errors)).toContain('fly_rockets');
      expect(await held(user)).toEqual([]);
    });

    it('replaces every assignment atomically with PUT, and leaves them untouched when one site is bad', async () => {
      const user = await alphaMember();
      await assign(user, [
        { slug: 'alpha-one', permissions: ['access_site', 'view_site'] },
        { slug: 'alpha-two', permissions: ['manage_site', 'access_site'] },
      ]);
      const path = pathOf(user);
      const failed = await app.request('PUT', path, {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-two', permissions: ['admin_site'] }, { slug: 'no-such-site' }] },
      });
      expect(failed.status).toBe(404);
      expect(failed.body.success).toBe(false);
      expect(await held(user)).toHaveLength(4);

      const replaced = await app.request('PUT', path, {
        token: token['su-admin'],
        body: { sites: [{ slug: 'alpha-two', permissions: ['admin_site'] }] },
      });

      expect(replaced.status).toBe(200);
      expect(replaced.body.data).toEqual([{ slug: 'alpha-two', name: 'Alpha Two', permissions: ['admin_site'] }]);
      expect(await held(user)).toEqual([{ site: 'alpha-two', codename: 'admin_site' }]);
    });

    it('clears every assignment with an empty PUT', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-two', permissions: ['admin_site'] }]);
      const answer = await app.request('PUT', pathOf(user), { token: token['su-admin'], body: { sites: [] } });

      expect(answer.body).toMatchObject({ success: true, total: 0, data: [] });
      expect(await held(user)).toEqual([]);
    });

    it('removes the named sites with DELETE', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-one' }, { slug: 'alpha-two' }]);

      const answer = await app.request('DELETE', pathOf(user), withBody(token['su-admin'], { sites: ['alpha-one'] }));

      expect(answer.status).toBe(200);
      expect(await held(user)).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('lets users view their own assignments but not change them', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-two' }]);
      const path = pathOf(user);
      const view = await app.request('GET', path, { token: token[user] });
      const add = await app.request('POST', path, { token: token[user], body: { sites: [{ slug: 'alpha-one' }] } });
      const clear = await app.request('PUT', path, { token: token[user], body: { sites: [] } });
      const remove = await app.request('DELETE', path, withBody(token[user], { sites: ['alpha-two'] }));
      const other = await app.request('GET', '/api/cloud/users/su-two/sites/', { token: token[user] });

      expect(view.status).toBe(200);
      expect(view.body.total).toBe(1);
      for (const answer of [add, clear, remove]) {
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ success: false, status_code: 403 });
      }
      expect(other.status).toBe(404);
      expect(await held(user)).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('denies cross-organization assignment', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-two' }]);
      const path = pathOf(user);
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
      expect(await held(user)).toEqual([{ site: 'alpha-two', codename: 'view_site' }]);
    });

    it('scopes a PUT by an organization admin to the sites they manage', async () => {
      const user = await alphaMember();
      await assign(user, [{ slug: 'alpha-two' }]);
      const path = pathOf(user);
      // The user also belongs to Beta and holds a Beta site; the Alpha admin's PUT must not touch it.
      await app.runtime.db.run(sql`
        insert into platform.organization_members (organization_id, user_id)
        select o.id, u.id from platform.organizations o, platform.users u where o.slug = 'beta' and u.username = ${user}`);
      const given = await app.request('POST', path, { token: token['su-beta-admin'], body: { sites: [{ slug: 'beta-one' }] } });
      expect(given.status).toBe(200);

      const answer = await app.request('PUT', path, { token: token['su-admin'], body: { sites: [] } });

      expect(answer.body).toMatchObject({ success: true, total: 0 });
      expect(await held(user)).toEqual([{ site: 'beta-one', codename: 'view_site' }]);
      const own = await app.request('GET', path, { token: token[user] });
      expect(own.body.data.map((site: { slug: string }) => site.slug)).toEqual(['beta-one']);
    });
  });

  describe('site → users', () => {
    /** A new Alpha site with two new members: `viewer` (view_site) and `manager` (manage_site_users). */
    async function siteWithUsers(): Promise<{ path: string; site: string; viewer: string; manager: string }> {
      const site = await alphaSite();
      const [viewer, manager] = [await alphaMember(), await alphaMember()];
      const path = `/api/cloud/sites/${site}/users/`;
      const answer = await app.request('POST', path, {
        token: token['su-admin'],
        body: { users: [{ username: viewer }, { username: manager, permissions: ['manage_site_users'] }] },
      });
      expect(answer.status).toBe(200);
      return { path, site, viewer, manager };
    }

    it('adds users with default view_site and answers their username, email, name and permissions', async () => {
      const site = await alphaSite();
      const [one, two] = [await alphaMember(), await alphaMember()];
      const answer = await app.request('POST', `/api/cloud/sites/${site}/users/`, {
        token: token['su-admin'],
        body: { users: [{ username: one }, { username: two, permissions: ['manage_site_users'] }] },
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, total: 2 });
      expect(answer.body.data).toEqual([
        { username: one, email: `${one}@example.com`, name: `First ${one}`, permissions: ['view_site'] },
        { username: two, email: `${two}@example.com`, name: `First ${two}`, permissions: ['manage_site_users'] },
      ]);
    });

    it('lists with search; a member without manage_site_users sees only themselves', async () => {
      const { path, viewer, manager } = await siteWithUsers();
      const searched = await app.request('GET', `${path}?search=${manager.toUpperCase()}`, { token: token['su-admin'] });
      const asMember = await app.request('GET', path, { token: token[viewer] });

      expect(searched.body.data.map((user: { username: string }) => user.username)).toEqual([manager]);
      expect(asMember.status).toBe(200);
      expect(asMember.body.data.map((user: { username: string }) => user.username)).toEqual([viewer]);
    });

    it('lets a manage_site_users holder assign others but not change their own assignment', async () => {
      const { path, site, viewer, manager } = await siteWithUsers();
      // The manager hands out and takes only what they hold (site-grant-escalation.test.ts).
      const holds = await app.request('POST', path, {
        token: token['su-admin'],
        body: { users: [{ username: manager, permissions: ['view_site', 'access_site'] }] },
      });
      expect(holds.status).toBe(200);
      const others = await app.request('PUT', path, {
        token: token[manager],
        body: { users: [{ username: viewer, permissions: ['access_site'] }] },
      });
      const self = await app.request('POST', path, {
        token: token[manager],
        body: { users: [{ username: manager, permissions: ['admin_site'] }] },
      });
      const plain = await app.request('POST', path, { token: token[viewer], body: { users: [{ username: manager }] } });

      expect(others.status).toBe(200);
      expect(self.status).toBe(403);
      expect(plain.status).toBe(403);
      expect(await held(viewer)).toEqual([{ site, codename: 'access_site' }]);
      expect(await held(manager)).toEqual([
        { site, codename: 'access_site' },
        { site, codename: 'manage_site_users' },
        { site, codename: 'view_site' },
      ]);
    });

    it('denies users outside the organization, unknown ones alike, and leaves the site unchanged', async () => {
      const { path, viewer } = await siteWithUsers();
      const before = await app.request('GET', path, { token: token['su-admin'] });
      const foreign = await app.request('PUT', path, { token: token['su-admin'], body: { users: [{ username: 'su-beta-admin' }] } });
      const unknown = await app.request('POST', path, { token: token['su-admin'], body: { users: [{ username: 'nobody-at-all' }] } });
      const foreignSite = await app.request('POST', '/api/cloud/sites/beta-one/users/', {
        token: token['su-admin'],
        body: { users: [{ username: viewer }] },
      });

      expect(foreign.status).toBe(403);
      expect(unknown.status).toBe(403);
      expect(foreign.body.success).toBe(false);
      expect(foreignSite.status).toBe(404);
      const after = await app.request('GET', path, { token: token['su-admin'] });
      expect(after.body.data).toEqual(before.body.data);
      expect(after.body.total).toBe(2);
    });

    it('replaces atomically with PUT and removes with DELETE', async () => {
      const { path, site, viewer, manager } = await siteWithUsers();
      const replaced = await app.request('PUT', path, { token: token['su-admin'], body: { users: [{ username: viewer }] } });
      expect(replaced.body.data.map((user: { username: string }) => user.username)).toEqual([viewer]);
      expect(await held(manager)).toEqual([]);

      const removed = await app.request('DELETE', path, withBody(token['su-admin'], { users: [viewer] }));
      const badBody = await app.request('DELETE', path, withBody(token['su-admin'], { users: [] }));

      expect(removed.body).toMatchObject({ success: true, total: 0, data: [] });
      expect(badBody.status).toBe(400);
      expect(badBody.body.success).toBe(false);
      expect((await held(viewer)).filter((row) => row.site === site)).toEqual([]);
    });
  });
});
