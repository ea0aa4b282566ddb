// The site permission escalation of the access probe, played through the API: a holder of
// manage_site_users (without admin_site) granting themselves or others site permissions they do not
// hold, taking ones they do not hold, or handing them out through an invitation. Each step is refused
// with 403 naming the permission and nothing changed, while the holder still grants what they hold and
// organization admins and superusers keep every power (the organization rule of grant-authority.ts).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`site permission grants on ${testDriver}`, () => {
  let app: TestApp;
  let org: string;
  let site: string;
  const tokens: Record<string, string> = {};
  const KEEPER_HOLDS = ['access_site', 'manage_site_users', 'view_site'];
  const ALL = ['access_site', 'admin_site', 'manage_site', 'manage_site_users', 'view_site'];

  const siteUsers = () => `/api/cloud/sites/${site}/users/`;
  const userSites = (username: string) => `/api/cloud/users/${username}/sites/`;
  // node:http sends no body length for DELETE unless told, so the body would be dropped on the way.
  const withBody = (token: string | undefined, body: unknown) => ({
    token,
    body,
    headers: { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) },
  });

  async function held(username: string): Promise<string[]> {
    const rows = await app.runtime.db.rows<{ codename: string }>(sql`
      select p.codename from platform.site_user_permissions sup join platform.sites s on s.id = sup.site_id
      join platform.permissions p on p.id = sup.permission_id join platform.users u on u.id = sup.user_id
      where s.slug = ${site} and u.username = ${username} order by p.codename`);
    return rows.map((row) => row.codename);
  }

  /** Refused with 403 in the answer's error envelope, its message naming `permission`. */
  function expectRefused(answer: { status: number; body: { message?: unknown } }, permission: string): void {
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(String(answer.body.message)).toMatch(new RegExp(`\\b${permission}\\b`));
  }

  // Every test makes the users it changes, named with a number of its own, so the tests pass in any order.
  let made = 0;
  /** A new member of the organization holding `permissions` on the site, given by the superuser. */
  async function member(permissions: string[] = []): Promise<string> {
    const username = `sg-user-${String(++made).padStart(3, '0')}`;
    await app.createUser(username);
    const sites = permissions.length === 0 ? [] : [{ slug: site, permissions }];
    const added = await app.request('POST', `/api/cloud/organizations/${org}/members/`, {
      token: tokens.superuser,
      body: { user_slug: username, sites },
    });
    expect(added.status).toBe(201);
    tokens[username] = await app.tokenOf(username);
    return username;
  }

  beforeAll(async () => {
    app = await startTestApp();
    tokens.superuser = await app.adminToken();
    for (const name of ['sg-owner', 'sg-admin', 'sg-keeper']) {
      await app.createUser(name);
      tokens[name] = await app.tokenOf(name);
    }
    const created = await app.request('POST', '/api/cloud/organizations/', { token: tokens['sg-owner'], body: { name: 'Grant Org' } });
    expect(created.status).toBe(201);
    org = created.body.data.slug;
    const shop = await app.request('POST', `/api/cloud/organizations/${org}/sites/`, {
      token: tokens['sg-owner'],
      body: { name: 'Grant Shop' },
    });
    expect(shop.status).toBe(201);
    site = shop.body.slug;
    const members = `/api/cloud/organizations/${org}/members/`;
    const admin = await app.request('POST', members, { token: tokens.superuser, body: { user_slug: 'sg-admin', is_admin: true } });
    const keeper = await app.request('POST', members, {
      token: tokens.superuser,
      body: { user_slug: 'sg-keeper', permissions: ['invite_members'], sites: [{ slug: site, permissions: KEEPER_HOLDS }] },
    });
    expect(admin.status).toBe(201);
    expect(keeper.status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('a manage_site_users holder without admin_site', () => {
    it('may not grant themselves admin_site, through either relation endpoint', async () => {
      // Act
      const bySite = await app.request('POST', siteUsers(), {
        token: tokens['sg-keeper'],
        body: { users: [{ username: 'sg-keeper', permissions: ['admin_site'] }] },
      });
      const byUser = await app.request('POST', userSites('sg-keeper'), {
        token: tokens['sg-keeper'],
        body: { sites: [{ slug: site, permissions: ['admin_site'] }] },
      });

      // Assess: the self rule answers first (users view their own assignments but do not change them)
      for (const answer of [bySite, byUser]) {
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ success: false, status_code: 403, code: 'PERMISSION_DENIED' });
      }
      expect(await held('sg-keeper')).toEqual(KEEPER_HOLDS);
    });

    it('may not grant someone else manage_site or admin_site, which the holder lacks', async () => {
      // Prepare
      const target = await member(['view_site']);

      // Act
      const manage = await app.request('POST', siteUsers(), {
        token: tokens['sg-keeper'],
        body: { users: [{ username: target, permissions: ['manage_site'] }] },
      });
      const mixed = await app.request('PUT', siteUsers(), {
        token: tokens['sg-keeper'],
        body: { users: [{ username: target, permissions: ['access_site', 'manage_site'] }] },
      });
      const admin = await app.request('POST', userSites(target), {
        token: tokens['sg-keeper'],
        body: { sites: [{ slug: site, permissions: ['admin_site'] }] },
      });
      const replace = await app.request('PUT', userSites(target), {
        token: tokens['sg-keeper'],
        body: { sites: [{ slug: site, permissions: ['admin_site'] }] },
      });

      // Assess
      expectRefused(manage, 'manage_site');
      expect(manage.body).toMatchObject({ success: false, status_code: 403 });
      expectRefused(mixed, 'manage_site');
      expectRefused(admin, 'admin_site');
      expectRefused(replace, 'admin_site');
      expect(await held(target)).toEqual(['view_site']);
    });

    it('grants access_site, which the holder holds', async () => {
      // Prepare
      const target = await member(['view_site']);

      // Act
      const bySite = await app.request('POST', siteUsers(), {
        token: tokens['sg-keeper'],
        body: { users: [{ username: target, permissions: ['access_site'] }] },
      });
      const other = await member();
      const byUser = await app.request('POST', userSites(other), {
        token: tokens['sg-keeper'],
        body: { sites: [{ slug: site, permissions: ['access_site', 'view_site'] }] },
      });

      // Assess
      expect(bySite.status).toBe(200);
      expect(byUser.status).toBe(200);
      expect(await held(target)).toEqual(['access_site', 'view_site']);
      expect(await held(other)).toEqual(['access_site', 'view_site']);
    });

    it('may not take away admin_site or manage_site, by DELETE or by a replacing PUT', async () => {
      // Prepare
      const senior = await member(['admin_site']);
      const manager = await member(['manage_site', 'view_site']);

      // Act
      const removeBySite = await app.request('DELETE', siteUsers(), withBody(tokens['sg-keeper'], { users: [senior] }));
      const removeByUser = await app.request('DELETE', userSites(manager), withBody(tokens['sg-keeper'], { sites: [site] }));
      const clearSite = await app.request('PUT', siteUsers(), { token: tokens['sg-keeper'], body: { users: [] } });
      const downgrade = await app.request('PUT', userSites(manager), {
        token: tokens['sg-keeper'],
        body: { sites: [{ slug: site, permissions: ['view_site'] }] },
      });

      // Assess
      expectRefused(removeBySite, 'admin_site');
      expectRefused(removeByUser, 'manage_site');
      expectRefused(clearSite, 'admin_site');
      expectRefused(downgrade, 'manage_site');
      expect(await held(senior)).toEqual(['admin_site']);
      expect(await held(manager)).toEqual(['manage_site', 'view_site']);
      expect(await held('sg-keeper')).toEqual(KEEPER_HOLDS);
    });

    it('takes away what the holder holds', async () => {
      // Prepare
      const target = await member(['access_site', 'view_site']);

      // Act
      const removed = await app.request('DELETE', siteUsers(), withBody(tokens['sg-keeper'], { users: [target] }));

      // Assess
      expect(removed.status).toBe(200);
      expect(await held(target)).toEqual([]);
    });
  });

  describe('organization admins and superusers', () => {
    it('lets an organization admin grant every site permission, and take them again', async () => {
      // Prepare
      const target = await member();
      const other = await member();

      // Act
      const bySite = await app.request('POST', siteUsers(), {
        token: tokens['sg-admin'],
        body: { users: [{ username: target, permissions: ALL }] },
      });
      const byUser = await app.request('PUT', userSites(other), {
        token: tokens['sg-admin'],
        body: { sites: [{ slug: site, permissions: ['admin_site', 'manage_site'] }] },
      });
      const granted = [await held(target), await held(other)];
      const removed = await app.request('DELETE', siteUsers(), withBody(tokens['sg-admin'], { users: [target, other] }));

      // Assess
      expect(bySite.status).toBe(200);
      expect(byUser.status).toBe(200);
      expect(granted).toEqual([ALL, ['admin_site', 'manage_site']]);
      expect(removed.status).toBe(200);
      expect([await held(target), await held(other)]).toEqual([[], []]);
    });

    it('lets a superuser grant every site permission', async () => {
      // Prepare
      const target = await member();

      // Act
      const answer = await app.request('POST', userSites(target), {
        token: tokens.superuser,
        body: { sites: [{ slug: site, permissions: ALL }] },
      });

      // Assess
      expect(answer.status).toBe(200);
      expect(await held(target)).toEqual(ALL);
    });

    it('lets an admin_site holder grant admin_site', async () => {
      // Prepare
      const senior = await member(['admin_site']);
      const target = await member();

      // Act
      const answer = await app.request('POST', siteUsers(), {
        token: tokens[senior],
        body: { users: [{ username: target, permissions: ['admin_site'] }] },
      });

      // Assess
      expect(answer.status).toBe(200);
      expect(await held(target)).toEqual(['admin_site']);
    });
  });

  describe('site permissions in invitations', () => {
    const invitations = () => `/api/cloud/organizations/${org}/invitations/`;
    const siteInvitation = (email: string, permissions: string[]) => ({
      invitee_identifier: email,
      invitation_config: { site: [{ slug: site, permissions }] },
    });

    async function invitationsFor(email: string): Promise<number> {
      const [row] = await app.runtime.db.rows<{ n: number }>(
        sql`select count(*)::int as n from platform.invitations where invitee_identifier = ${email}`,
      );
      return Number(row!.n);
    }

    it('refuses an invitation carrying admin_site made by a manage_site_users holder, and stores none', async () => {
      // Act
      const admin = await app.request('POST', invitations(), {
        token: tokens['sg-keeper'],
        body: siteInvitation('sg-invited-1@example.com', ['admin_site']),
      });
      const manage = await app.request('POST', invitations(), {
        token: tokens['sg-keeper'],
        body: siteInvitation('sg-invited-1@example.com', ['access_site', 'manage_site']),
      });

      // Assess
      expectRefused(admin, 'admin_site');
      expect(admin.body).toMatchObject({ status: 'error' });
      expectRefused(manage, 'manage_site');
      expect(await invitationsFor('sg-invited-1@example.com')).toBe(0);
    });

    it('accepts an invitation carrying what the holder holds, and grants it', async () => {
      // Prepare
      await app.createUser('sg-invited-2');

      // Act
      const invited = await app.request('POST', invitations(), {
        token: tokens['sg-keeper'],
        body: siteInvitation('sg-invited-2@example.com', ['access_site']),
      });
      const accepted = await app.request('POST', `/api/cloud/invitations/${invited.body.uuid}/accept/`, {
        token: await app.tokenOf('sg-invited-2'),
      });

      // Assess
      expect(invited.status).toBe(201);
      expect(accepted.status).toBe(200);
      expect(await held('sg-invited-2')).toEqual(['access_site']);
    });

    it('grants at acceptance only what the inviter holds, for an invitation stored with more', async () => {
      // Prepare: an invitation of the holder carrying admin_site and manage_site (as one made before the rule)
      await app.createUser('sg-invited-3');
      const invited = await app.request('POST', invitations(), {
        token: tokens['sg-keeper'],
        body: siteInvitation('sg-invited-3@example.com', ['access_site']),
      });
      expect(invited.status).toBe(201);
      const config = { group: [], site: [{ slug: site, permissions: ['access_site', 'admin_site', 'manage_site'] }] };
      await app.runtime.db.run(sql`
        update platform.invitations set invitation_config = ${JSON.stringify(config)}::jsonb where uuid = ${invited.body.uuid}`);

      // Act
      const accepted = await app.request('POST', `/api/cloud/invitations/${invited.body.uuid}/accept/`, {
        token: await app.tokenOf('sg-invited-3'),
      });

      // Assess
      expect(accepted.status).toBe(200);
      expect(await held('sg-invited-3')).toEqual(['access_site']);
    });

    it('lets an organization admin invite with admin_site, which the invitee then holds', async () => {
      // Prepare
      await app.createUser('sg-invited-4');

      // Act
      const invited = await app.request('POST', invitations(), {
        token: tokens['sg-admin'],
        body: siteInvitation('sg-invited-4@example.com', ['admin_site']),
      });
      const accepted = await app.request('POST', `/api/cloud/invitations/${invited.body.uuid}/accept/`, {
        token: await app.tokenOf('sg-invited-4'),
      });

      // Assess
      expect(invited.status).toBe(201);
      expect(accepted.status).toBe(200);
      expect(await held('sg-invited-4')).toEqual(['admin_site']);
    });
  });
});
