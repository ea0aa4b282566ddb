import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('groups API', () => {
  let app: TestApp;
  let admin: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    for (const name of ['grp-ann', 'grp-bob', 'grp-cat', 'grp-manager', 'grp-plain']) await app.createUser(name);
    await app.grant('grp-manager', 'change_user', 'view_user');
  });
  afterAll(async () => {
    await app.close();
  });

  const usernames = (body: { results: Array<{ username: string }> }) => body.results.map((user) => user.username);

  describe('create, read, replace, delete', () => {
    it('creates a group with its permissions and members, both sorted', async () => {
      const created = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Editors', permissions: ['view_user', 'change_user', 'view_user'], users: ['grp-bob', 'grp-ann'] },
      });

      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        name: 'Editors',
        permissions: ['change_user', 'view_user'],
        users: ['grp-ann', 'grp-bob'],
      });
      const detail = await app.request('GET', `/api/cloud/groups/${created.body.id}/`, { token: admin });
      expect(detail.body).toEqual(created.body);
    });

    it('lists groups as a plain page with search and pagination, on both path forms', async () => {
      // Other tests make groups too: count from what is there before.
      const before = (await app.request('GET', '/api/cloud/groups/?page_size=1', { token: admin })).body.count as number;
      await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Auditors' } });
      await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Support 100%' } });

      const all = await app.request('GET', '/api/cloud/groups/?page_size=1', { token: admin });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ count: before + 2, previous: null });
      expect(all.body.results).toHaveLength(1);
      expect(all.body.next).toContain('page=2');
      const auditors = await app.request('GET', '/api/cloud/groups/?search=Auditors', { token: admin });
      expect(auditors.body).toMatchObject({ count: 1, results: [{ name: 'Auditors', permissions: [], users: [] }] });
      const searched = await app.request('GET', `/api/groups/?search=${encodeURIComponent('0%')}`, { token: admin });
      expect(searched.body.results.map((group: { name: string }) => group.name)).toEqual(['Support 100%']);
    });

    it('replaces the name and both lists on PUT; omitted lists become empty', async () => {
      const created = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Rotating', permissions: ['add_user'], users: ['grp-ann', 'grp-bob'] },
      });
      const replaced = await app.request('PUT', `/api/cloud/groups/${created.body.id}/`, {
        token: admin,
        body: { name: 'Rotated', permissions: ['delete_user', 'view_site'], users: ['grp-cat'] },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toEqual({
        id: created.body.id,
        name: 'Rotated',
        permissions: ['delete_user', 'view_site'],
        users: ['grp-cat'],
      });

      const emptied = await app.request('PUT', `/api/groups/${created.body.id}`, { token: admin, body: { name: 'Rotated' } });
      expect(emptied.body).toMatchObject({ permissions: [], users: [] });
    });

    it('deletes a group: 204, then 404', async () => {
      const created = await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Short-lived' } });
      const deleted = await app.request('DELETE', `/api/cloud/groups/${created.body.id}/`, { token: admin });
      expect(deleted.status).toBe(204);
      const again = await app.request('GET', `/api/cloud/groups/${created.body.id}/`, { token: admin });
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    });

    it('answers 404 for ids that are not ids', async () => {
      for (const id of ['abc', '0', '99999999999', '2147483648']) {
        const answer = await app.request('GET', `/api/cloud/groups/${id}/`, { token: admin });
        expect(answer.status).toBe(404);
      }
    });
  });

  describe('validation', () => {
    it('names every unknown codename and username in a 400', async () => {
      const answer = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Broken', permissions: ['view_user', 'fly_plane', 'make_tea'], users: ['grp-ann', 'nobody-here'] },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.errors.permissions[0]).toContain('fly_plane');
      expect(answer.body.errors.permissions[0]).toContain('make_tea');
      expect(answer.body.errors.users[0]).toContain('nobody-here');
      const listed = await app.request('GET', '/api/cloud/groups/?search=Broken', { token: admin });
      expect(listed.body.count).toBe(0);
    });

    it('refuses a duplicate name with a field error, on create and on rename', async () => {
      await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Unique One' } });
      const duplicate = await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Unique One' } });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body.errors).toEqual({ name: ['A group with that name already exists.'] });

      const other = await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Unique Two' } });
      const rename = await app.request('PUT', `/api/cloud/groups/${other.body.id}/`, { token: admin, body: { name: 'Unique One' } });
      expect(rename.status).toBe(400);
      expect(rename.body.errors.name).toBeDefined();
    });

    it('refuses a malformed body with a 400, never a 500', async () => {
      const noName = await app.request('POST', '/api/cloud/groups/', { token: admin, body: { permissions: 'view_user' } });
      expect(noName.status).toBe(400);
      expect(Object.keys(noName.body.errors).sort()).toEqual(['name', 'permissions']);
      const notJson = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: '{"name":',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
    });
  });

  describe('permissions reach the members', () => {
    it('lets a member of a group holding view_user list every user, and takes it away with the membership', async () => {
      // A user of its own: other tests put grp-cat into groups with view_user.
      await app.createUser('grp-dan');
      const before = await app.request('GET', '/api/cloud/users/', { token: await app.tokenOf('grp-dan') });
      expect(usernames(before.body)).toEqual(['grp-dan']);

      const group = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Viewers', permissions: ['view_user'], users: ['grp-dan'] },
      });
      const during = await app.request('GET', '/api/cloud/users/?page_size=100', { token: await app.tokenOf('grp-dan') });
      expect(usernames(during.body)).toEqual(expect.arrayContaining(['admin', 'grp-ann', 'grp-dan']));

      await app.request('PUT', `/api/cloud/groups/${group.body.id}/`, {
        token: admin,
        body: { name: 'Viewers', permissions: ['view_user'] },
      });
      const after = await app.request('GET', '/api/cloud/users/', { token: await app.tokenOf('grp-dan') });
      expect(usernames(after.body)).toEqual(['grp-dan']);
    });

    it('shows the group in the member user detail', async () => {
      const group = await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Detail Group', users: ['grp-ann'] } });
      const detail = await app.request('GET', '/api/cloud/users/grp-ann/', { token: admin });
      expect(detail.body.groups).toContainEqual({ id: group.body.id, name: 'Detail Group' });
    });
  });

  describe('who may do what', () => {
    it('lets any signed-in user read groups, showing members only to user viewers (others see just themselves)', async () => {
      await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name: 'Mixed', users: ['grp-plain', 'grp-ann'] } });
      const plain = await app.request('GET', '/api/cloud/groups/?search=Mixed', { token: await app.tokenOf('grp-plain') });
      expect(plain.status).toBe(200);
      expect(plain.body.results).toEqual([expect.objectContaining({ name: 'Mixed', users: ['grp-plain'] })]);
      const manager = await app.request('GET', '/api/cloud/groups/?search=Mixed', { token: await app.tokenOf('grp-manager') });
      expect(manager.body.results[0].users).toEqual(['grp-ann', 'grp-plain']);
    });

    it('refuses changes to users without change_user', async () => {
      const token = await app.tokenOf('grp-plain');
      const created = await app.request('POST', '/api/cloud/groups/', { token, body: { name: 'Mine' } });
      expect(created.status).toBe(403);
      expect(created.body.code).toBe('PERMISSION_DENIED');
      const anonymous = await app.request('GET', '/api/cloud/groups/');
      expect(anonymous.status).toBe(401);
    });

    it('lets a change_user holder manage groups within the permissions they hold', async () => {
      const token = await app.tokenOf('grp-manager');
      const created = await app.request('POST', '/api/cloud/groups/', {
        token,
        body: { name: 'Helpers', permissions: ['view_user'], users: ['grp-bob'] },
      });
      expect(created.status).toBe(201);
      const replaced = await app.request('PUT', `/api/cloud/groups/${created.body.id}/`, {
        token,
        body: { name: 'Helpers', permissions: ['view_user', 'change_user'], users: ['grp-bob', 'grp-cat'] },
      });
      expect(replaced.status).toBe(200);
    });

    it('refuses a non-superuser adding themselves to a group, even one with change_user', async () => {
      const token = await app.tokenOf('grp-manager');
      const joinNew = await app.request('POST', '/api/cloud/groups/', {
        token,
        body: { name: 'Self Made', permissions: ['change_user'], users: ['grp-manager'] },
      });
      expect(joinNew.status).toBe(403);

      const existing = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Powerful', permissions: ['change_user'] },
      });
      const joinExisting = await app.request('PUT', `/api/cloud/groups/${existing.body.id}/`, {
        token,
        body: { name: 'Powerful', permissions: ['change_user'], users: ['grp-manager'] },
      });
      expect(joinExisting.status).toBe(403);
      const unchanged = await app.request('GET', `/api/cloud/groups/${existing.body.id}/`, { token: admin });
      expect(unchanged.body.users).toEqual([]);
    });

    it('refuses a non-superuser granting, changing or deleting groups with permissions they do not hold', async () => {
      const token = await app.tokenOf('grp-manager');
      const grant = await app.request('POST', '/api/cloud/groups/', {
        token,
        body: { name: 'Deleters', permissions: ['delete_user'], users: ['grp-bob'] },
      });
      expect(grant.status).toBe(403);
      expect(grant.body.message).toContain('delete_user');

      const admins = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Admins', permissions: ['delete_user'] },
      });
      const addUser = await app.request('PUT', `/api/cloud/groups/${admins.body.id}/`, {
        token,
        body: { name: 'Admins', permissions: ['delete_user'], users: ['grp-bob'] },
      });
      expect(addUser.status).toBe(403);
      const remove = await app.request('DELETE', `/api/cloud/groups/${admins.body.id}/`, { token });
      expect(remove.status).toBe(403);
    });

    it('lets a superuser do all of it, themselves included', async () => {
      const created = await app.request('POST', '/api/cloud/groups/', {
        token: admin,
        body: { name: 'Root Club', permissions: ['delete_user', 'admin_site'], users: ['admin'] },
      });
      expect(created.status).toBe(201);
    });
  });
});
