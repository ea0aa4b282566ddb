import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('users API', () => {
  let app: TestApp;
  let admin: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
  });
  afterAll(async () => {
    await app.close();
  });

  const usernames = (body: { results: Array<{ username: string }> }) => body.results.map((user) => user.username);

  describe('list visibility', () => {
    // Two plain users every test of this block may list; none changes them.
    beforeAll(async () => {
      await app.createUser('vis-plain');
      await app.createUser('vis-other');
    });

    it('shows a user without view_user only themselves', async () => {
      const answer = await app.request('GET', '/api/cloud/users/?is_active=all', { token: await app.tokenOf('vis-plain') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ count: 1, next: null, previous: null });
      expect(usernames(answer.body)).toEqual(['vis-plain']);
    });

    it('shows holders of view_user every user, also through a group', async () => {
      await app.createUser('vis-viewer');
      await app.grant('vis-viewer', 'view_user');
      const direct = await app.request('GET', '/api/users/?page_size=100', { token: await app.tokenOf('vis-viewer') });
      expect(usernames(direct.body)).toEqual(expect.arrayContaining(['admin', 'vis-plain', 'vis-other', 'vis-viewer']));

      await app.createUser('vis-grouped');
      await app.runtime.db.run(sql`
        with g as (insert into platform.groups (name) values ('viewers') returning id)
        insert into platform.group_permissions (group_id, permission_id)
        select g.id, p.id from g, platform.permissions p where p.codename = 'view_user'`);
      await app.runtime.db.run(sql`
        insert into platform.user_groups (user_id, group_id)
        select u.id, g.id from platform.users u, platform.groups g where u.username = 'vis-grouped' and g.name = 'viewers'`);
      const grouped = await app.request('GET', '/api/users/?page_size=100', { token: await app.tokenOf('vis-grouped') });
      expect(grouped.body.count).toBe(direct.body.count + 1);
    });

    it('applies the organization-filter rules: admins see all members, members themselves, outsiders nobody', async () => {
      for (const name of ['org-admin', 'org-member', 'org-outsider']) await app.createUser(name);
      await app.runtime.db.run(sql`insert into platform.organizations (name, slug) values ('Acme', 'acme')`);
      await app.runtime.db.run(sql`
        insert into platform.organization_members (organization_id, user_id, is_admin)
        select o.id, u.id, u.username = 'org-admin' from platform.organizations o, platform.users u
        where o.slug = 'acme' and u.username in ('org-admin', 'org-member')`);
      const [acme] = await app.runtime.db.rows<{ uuid: string }>(
        sql`select uuid::text as uuid from platform.organizations where slug = 'acme'`,
      );

      const asAdmin = await app.request('GET', '/api/cloud/users/?organization_slug=acme', { token: await app.tokenOf('org-admin') });
      expect(usernames(asAdmin.body).sort()).toEqual(['org-admin', 'org-member']);
      const asMember = await app.request('GET', `/api/cloud/users/?organization_uuid=${acme!.uuid}`, {
        token: await app.tokenOf('org-member'),
      });
      expect(usernames(asMember.body)).toEqual(['org-member']);
      const asOutsider = await app.request('GET', '/api/cloud/users/?organization_slug=acme', { token: await app.tokenOf('org-outsider') });
      expect(asOutsider.body).toMatchObject({ count: 0, results: [] });
      const unknown = await app.request('GET', '/api/cloud/users/?organization_slug=nope', { token: admin });
      expect(unknown.body.count).toBe(0);
    });
  });

  describe('list filters, ordering and pages', () => {
    beforeAll(async () => {
      await app.createUser('flt-alpha', { first_name: 'Zed', last_name: 'Percent%' });
      await app.createUser('flt-beta', { is_staff: true });
      await app.createUser('flt-gamma');
      await app.request('PATCH', '/api/cloud/users/flt-gamma/', { token: admin, body: { is_active: false } });
    });

    it('searches username, email and names case-insensitively, with % taken literally', async () => {
      const byName = await app.request('GET', '/api/cloud/users/?search=ZED', { token: admin });
      expect(usernames(byName.body)).toEqual(['flt-alpha']);
      const literal = await app.request('GET', `/api/cloud/users/?search=${encodeURIComponent('t%')}`, { token: admin });
      expect(usernames(literal.body)).toEqual(['flt-alpha']);
      const byEmail = await app.request('GET', '/api/cloud/users/?search=flt-beta@EXAMPLE', { token: admin });
      expect(usernames(byEmail.body)).toEqual(['flt-beta']);
    });

    it('lists active users by default and inactive or all on request', async () => {
      const active = await app.request('GET', '/api/cloud/users/?search=flt-', { token: admin });
      expect(usernames(active.body)).toEqual(['flt-alpha', 'flt-beta']);
      const inactive = await app.request('GET', '/api/cloud/users/?search=flt-&is_active=false', { token: admin });
      expect(usernames(inactive.body)).toEqual(['flt-gamma']);
      const all = await app.request('GET', '/api/cloud/users/?search=flt-&is_active=all', { token: admin });
      expect(usernames(all.body)).toEqual(['flt-alpha', 'flt-beta', 'flt-gamma']);
    });

    it('filters by is_staff', async () => {
      const staff = await app.request('GET', '/api/cloud/users/?search=flt-&is_staff=true', { token: admin });
      expect(usernames(staff.body)).toEqual(['flt-beta']);
    });

    it('orders by the requested fields, descending with a minus', async () => {
      const answer = await app.request('GET', '/api/cloud/users/?search=flt-&is_active=all&ordering=-username', { token: admin });
      expect(usernames(answer.body)).toEqual(['flt-gamma', 'flt-beta', 'flt-alpha']);
      const byJoined = await app.request('GET', '/api/cloud/users/?search=flt-&is_active=all&ordering=-date_joined,username', {
        token: admin,
      });
      expect(byJoined.status).toBe(200);
    });

    it('refuses an unknown ordering field naming it', async () => {
      const answer = await app.request('GET', '/api/cloud/users/?ordering=password_hash', { token: admin });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.errors.ordering[0]).toContain('password_hash');
    });

    it('pages with count, next and previous links', async () => {
      const first = await app.request('GET', '/api/cloud/users/?search=flt-&is_active=all&page_size=2', { token: admin });
      expect(first.body.count).toBe(3);
      expect(first.body.results).toHaveLength(2);
      expect(first.body.previous).toBeNull();
      expect(first.body.next).toBe(`${app.url}/api/cloud/users/?search=flt-&is_active=all&page_size=2&page=2`);
      const second = await app.request('GET', new URL(first.body.next).pathname + new URL(first.body.next).search, { token: admin });
      expect(usernames(second.body)).toEqual(['flt-gamma']);
      expect(second.body.next).toBeNull();
      expect(second.body.previous).toBe(`${app.url}/api/cloud/users/?search=flt-&is_active=all&page_size=2`);
    });

    it('clamps page_size to 100 and refuses a page size that is not a number', async () => {
      const clamped = await app.request('GET', '/api/cloud/users/?page_size=5000', { token: admin });
      expect(clamped.status).toBe(200);
      const bad = await app.request('GET', '/api/cloud/users/?page_size=ten', { token: admin });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.page_size).toBeDefined();
      const zero = await app.request('GET', '/api/cloud/users/?page=0', { token: admin });
      expect(zero.status).toBe(400);
    });

    it('answers past the last page with an empty page that still counts', async () => {
      const answer = await app.request('GET', '/api/cloud/users/?search=flt-&page=9', { token: admin });
      expect(answer.body).toMatchObject({ count: 2, results: [], next: null });
    });
  });

  describe('create', () => {
    it('creates a user and never returns the password', async () => {
      const answer = await app.request('POST', '/api/cloud/users/', {
        token: admin,
        body: { username: 'new-one', email: 'new-one@example.com', password: USER_PASSWORD, first_name: 'New' },
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        username: 'new-one',
        email: 'new-one@example.com',
        first_name: 'New',
        is_active: true,
        is_staff: false,
        is_superuser: false,
        is_deleted: false,
        last_login: null,
      });
      expect(JSON.stringify(answer.body)).not.toMatch(/password/);
      expect((await app.login('new-one', USER_PASSWORD)).access).toBeTruthy();
    });

    it('refuses a taken username and a taken email (case-insensitive) as field errors', async () => {
      await app.createUser('taken');
      const answer = await app.request('POST', '/api/cloud/users/', {
        token: admin,
        body: { username: 'taken', email: 'TAKEN@example.com', password: USER_PASSWORD },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        status: 'error',
        code: 'VALIDATION_ERROR',
        errors: {
          username: ['A user with that username already exists.'],
          email: ['A user with that email already exists.'],
        },
      });
    });

    it('validates every field in the spec error shape', async () => {
      const answer = await app.request('POST', '/api/cloud/users/', {
        token: admin,
        body: { username: '123e4567-e89b-42d3-a456-426614174000', email: 'not-an-email', password: 'short' },
      });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.errors).sort()).toEqual(['email', 'password', 'username']);
    });

    it('needs the add_user permission', async () => {
      await app.createUser('no-adder');
      const denied = await app.request('POST', '/api/cloud/users/', {
        token: await app.tokenOf('no-adder'),
        body: { username: 'x-user', email: 'x-user@example.com', password: USER_PASSWORD },
      });
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ code: 'PERMISSION_DENIED', detail: expect.any(String) });
    });

    it('lets only superusers create staff or superusers', async () => {
      await app.createUser('adder');
      await app.grant('adder', 'add_user');
      const denied = await app.request('POST', '/api/cloud/users/', {
        token: await app.tokenOf('adder'),
        body: { username: 'would-be-root', email: 'root2@example.com', password: USER_PASSWORD, is_superuser: true },
      });
      expect(denied.status).toBe(403);
      const rows = await app.runtime.db.rows(sql`select 1 from platform.users where username = 'would-be-root'`);
      expect(rows).toHaveLength(0);
    });
  });

  describe('detail', () => {
    it('shows a user to themselves with organizations and groups', async () => {
      await app.createUser('self-viewer');
      const answer = await app.request('GET', '/api/cloud/users/self-viewer/', { token: await app.tokenOf('self-viewer') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ username: 'self-viewer', organizations: [], groups: [] });
    });

    it('hides other users from a caller without view_user', async () => {
      await app.createUser('nosy');
      const answer = await app.request('GET', '/api/cloud/users/admin/', { token: await app.tokenOf('nosy') });
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: 'NOT_FOUND', detail: 'User not found.' });
    });

    it('finds a user by UUID as well as by username', async () => {
      const created = await app.createUser('by-uuid');
      const answer = await app.request('GET', `/api/cloud/users/${created.uuid}/`, { token: admin });
      expect(answer.body.username).toBe('by-uuid');
    });
  });

  describe('update and privilege rules', () => {
    // The user the refused or no-op changes aim at; no test changes it (editor-self is changed by its own test).
    beforeAll(async () => {
      await app.createUser('edit-target');
    });

    it('lets a user change their own names and email', async () => {
      await app.createUser('editor-self');
      const answer = await app.request('PATCH', '/api/cloud/users/editor-self/', {
        token: await app.tokenOf('editor-self'),
        body: { first_name: 'Edith', email: 'edith@example.com' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ first_name: 'Edith', email: 'edith@example.com' });
    });

    it.each([{ is_staff: true }, { is_superuser: true }, { is_active: false }])(
      'refuses a user raising or changing their own flags: %o',
      async (change) => {
        const name = `climber-${Object.keys(change)[0]}`.replace(/_/g, '-');
        await app.createUser(name);
        await app.grant(name, 'change_user');
        const answer = await app.request('PATCH', `/api/cloud/users/${name}/`, { token: await app.tokenOf(name), body: change });
        expect(answer.status).toBe(403);
        const [row] = await app.runtime.db.rows<{ is_staff: boolean; is_superuser: boolean; is_active: boolean }>(
          sql`select is_staff, is_superuser, is_active from platform.users where username = ${name}`,
        );
        expect(row).toEqual({ is_staff: false, is_superuser: false, is_active: true });
      },
    );

    it('refuses changes to other users without change_user', async () => {
      await app.createUser('meddler');
      await app.grant('meddler', 'view_user');
      const answer = await app.request('PATCH', '/api/cloud/users/edit-target/', {
        token: await app.tokenOf('meddler'),
        body: { last_name: 'X' },
      });
      expect(answer.status).toBe(403);
    });

    it('refuses a non-superuser with change_user touching a superuser', async () => {
      await app.createUser('helpdesk');
      await app.grant('helpdesk', 'change_user', 'view_user');
      const answer = await app.request('PATCH', '/api/cloud/users/admin/', {
        token: await app.tokenOf('helpdesk'),
        body: { password: 'taken-over-123' },
      });
      expect(answer.status).toBe(403);
      expect((await app.login(ADMIN.username, ADMIN.password)).access).toBeTruthy();
    });

    it('deactivation blocks login and keeps the data', async () => {
      await app.createUser('paused', { first_name: 'Kept' });
      const answer = await app.request('PATCH', '/api/cloud/users/paused/', { token: admin, body: { is_active: false } });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ is_active: false, first_name: 'Kept', is_deleted: false });
      const login = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'paused', password: USER_PASSWORD } });
      expect(login.status).toBe(401);
    });

    it('a password set by an administrator ends the sessions opened with the old one', async () => {
      await app.createUser('reset-me');
      const old = await app.tokenOf('reset-me');
      const answer = await app.request('PATCH', '/api/cloud/users/reset-me/', { token: admin, body: { password: 'brand-new-pass-1' } });
      expect(answer.status).toBe(200);
      expect((await app.request('GET', '/api/cloud/users/', { token: old })).status).toBe(401);
      expect((await app.login('reset-me', 'brand-new-pass-1')).access).toBeTruthy();
    });

    it('PUT requires username and email', async () => {
      const answer = await app.request('PUT', '/api/cloud/users/edit-target/', { token: admin, body: { first_name: 'Only' } });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toMatchObject({ username: ['This field is required.'], email: ['This field is required.'] });
    });

    it('answers an empty PATCH with the unchanged user', async () => {
      const answer = await app.request('PATCH', '/api/cloud/users/edit-target/', { token: admin, body: {} });
      expect(answer.status).toBe(200);
      expect(answer.body.username).toBe('edit-target');
    });

    it('refuses a NUL byte in a path or query value with 400, not 500', async () => {
      expect((await app.request('GET', '/api/cloud/users/a%00b/', { token: admin })).status).toBe(400);
      expect((await app.request('GET', '/api/cloud/users/?search=%00', { token: admin })).status).toBe(400);
    });

    it('refuses renaming onto a taken username', async () => {
      const answer = await app.request('PATCH', '/api/cloud/users/edit-target/', { token: admin, body: { username: 'admin' } });
      expect(answer.status).toBe(400);
      expect(answer.body.errors.username).toEqual(['A user with that username already exists.']);
    });
  });

  describe('soft delete and restore', () => {
    it('soft-deletes: login blocked, memberships removed, row kept', async () => {
      const gone = await app.createUser('to-delete', { first_name: 'Still here' });
      await app.runtime.db.run(sql`insert into platform.organizations (name, slug) values ('Delete Org', 'delete-org')`);
      await app.runtime.db.run(sql`
        insert into platform.organization_members (organization_id, user_id)
        select o.id, ${gone.id} from platform.organizations o where o.slug = 'delete-org'`);

      const answer = await app.request('DELETE', '/api/cloud/users/to-delete/', { token: admin });
      expect(answer.status).toBe(204);
      expect(answer.body).toBe('');

      const [row] = await app.runtime.db.rows<{ is_deleted: boolean; is_active: boolean; first_name: string }>(
        sql`select is_deleted, is_active, first_name from platform.users where id = ${gone.id}`,
      );
      expect(row).toEqual({ is_deleted: true, is_active: false, first_name: 'Still here' });
      const memberships = await app.runtime.db.rows(sql`select 1 from platform.organization_members where user_id = ${gone.id}`);
      expect(memberships).toHaveLength(0);
      const login = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'to-delete', password: USER_PASSWORD } });
      expect(login.status).toBe(401);
      expect((await app.request('DELETE', '/api/cloud/users/to-delete/', { token: admin })).status).toBe(404);
    });

    it('refuses deleting yourself', async () => {
      const answer = await app.request('DELETE', '/api/cloud/users/admin/', { token: admin });
      expect(answer.status).toBe(403);
    });

    it('refuses deleting without delete_user and a superuser by a non-superuser', async () => {
      await app.createUser('deleter');
      await app.grant('deleter', 'view_user');
      await app.createUser('victim');
      const withoutPermission = await app.request('DELETE', '/api/cloud/users/victim/', { token: await app.tokenOf('deleter') });
      expect(withoutPermission.status).toBe(403);
      await app.grant('deleter', 'delete_user');
      const superuser = await app.request('DELETE', '/api/cloud/users/admin/', { token: await app.tokenOf('deleter') });
      expect(superuser.status).toBe(403);
      const allowed = await app.request('DELETE', '/api/cloud/users/victim/', { token: await app.tokenOf('deleter') });
      expect(allowed.status).toBe(204);
    });

    it('restores a soft-deleted user for superusers only', async () => {
      await app.createUser('comeback');
      await app.request('DELETE', '/api/cloud/users/comeback/', { token: admin });
      await app.createUser('not-root');
      await app.grant('not-root', 'change_user', 'view_user', 'delete_user');
      const denied = await app.request('POST', '/api/cloud/users/comeback/restore/', { token: await app.tokenOf('not-root') });
      expect(denied.status).toBe(403);

      const restored = await app.request('POST', '/api/users/comeback/restore/', { token: admin });
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ username: 'comeback', is_active: true, is_deleted: false });
      expect((await app.login('comeback', USER_PASSWORD)).access).toBeTruthy();

      const again = await app.request('POST', '/api/cloud/users/comeback/restore/', { token: admin });
      expect(again.status).toBe(409);
    });
  });
});
