// App roles, site roles and role memberships on a tenant host, through the dev server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('roles', () => {
  let app: TestApp;
  let admin: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  let viewer: string;
  let userManager: string;
  let schema: string;
  const call = (method: string, path: string, body?: unknown, token = admin) =>
    app.request(method, path, { token, body, headers: site.headers });

  // Every test makes the apps, roles and users it reads, named with a number of its own, so the tests
  // pass in any order (--sequence.shuffle).
  let made = 0;
  const fresh = (base: string) => `${base}${++made}`;

  async function newMember(username: string): Promise<string> {
    await app.createUser(username, { first_name: username.toUpperCase() });
    await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, { token: admin, body: { user_slug: username } });
    return username;
  }

  /** A new app: its slug and name. */
  async function newApp(base: string): Promise<{ slug: string; name: string }> {
    const answer = await call('POST', '/api/apps/', { name: fresh(base) });
    expect(answer.status).toBe(201);
    return { slug: answer.body.slug, name: answer.body.name };
  }

  /** A new app with the role tree "Store Manager" (described "runs it") over "Clerk". */
  async function appWithTree(): Promise<{ slug: string; name: string; manager: string; clerk: string; clerkId: number }> {
    const created = await newApp('Shop');
    expect((await call('POST', `/api/app/${created.slug}/roles`, { name: 'Store Manager', description: 'runs it' })).status).toBe(201);
    const manager = `${created.slug}-store-manager`;
    const clerk = await call('POST', `/api/app/${created.slug}/roles`, { name: 'Clerk', parent_role_slug: manager });
    expect(clerk.status).toBe(201);
    return { ...created, manager, clerk: clerk.body.slug, clerkId: clerk.body.id };
  }

  /** A new site role over the given app roles: its slug and id. */
  async function newSiteRole(base: string, roleSlugs: string[] = []): Promise<{ slug: string; id: number; name: string }> {
    const answer = await call('POST', '/api/roles/', { name: fresh(base), role_slugs: roleSlugs });
    expect(answer.status).toBe(201);
    return { slug: answer.body.slug, id: answer.body.id, name: answer.body.name };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Roles Site');
    for (const name of ['viewer', 'usermanager']) await newMember(name);
    await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: admin,
      body: {
        users: [
          { username: 'viewer', permissions: ['view_site'] },
          { username: 'usermanager', permissions: ['manage_site_users'] },
        ],
      },
    });
    viewer = (await app.login('viewer', USER_PASSWORD)).access;
    userManager = (await app.login('usermanager', USER_PASSWORD)).access;
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    schema = row!.schema_name;
  });
  afterAll(async () => {
    await app.close();
  });

  describe('app roles', () => {
    it('creates roles in a tree with slugs made of app and name', async () => {
      const shop = await newApp('Shop');
      const root = await call('POST', `/api/app/${shop.slug}/roles`, { name: 'Store Manager', description: 'runs it' });
      expect(root.status).toBe(201);
      expect(root.body).toMatchObject({
        name: 'Store Manager',
        slug: `${shop.slug}-store-manager`,
        description: 'runs it',
        is_parent: false,
        app_slug: shop.slug,
        app_name: shop.name,
        parent_id: null,
        parent_role_slug: null,
      });
      const child = await call('POST', `/api/app/${shop.slug}/roles`, { name: 'Clerk', parent_role_slug: `${shop.slug}-store-manager` });
      expect(child.body).toMatchObject({
        slug: `${shop.slug}-clerk`,
        parent_id: root.body.id,
        parent_role_slug: `${shop.slug}-store-manager`,
      });
      expect((await call('GET', `/api/app/${shop.slug}/roles/${shop.slug}-store-manager`)).body.is_parent).toBe(true);
    });

    it('lists roles in Envelope A, searchable and ordered by name by default', async () => {
      const shop = await appWithTree();
      const list = await call('GET', `/api/app/${shop.slug}/roles?page_size=1`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({
        status: 'success',
        total: 2,
        pagination: { page: 1, page_size: 1, has_next: true, has_previous: false },
      });
      expect(list.body.data[0].name).toBe('Clerk');
      const searched = await call('GET', `/api/app/${shop.slug}/roles?search=runs`);
      expect(searched.body.data.map((role: { slug: string }) => role.slug)).toEqual([shop.manager]);
      expect((await call('GET', `/api/app/${shop.slug}/roles?ordering=-name`)).body.data[0].name).toBe('Store Manager');
      expect((await call('GET', `/api/app/${shop.slug}/roles?ordering=secret`)).status).toBe(400);
    });

    it('refuses a duplicate name in the same app but not in another app', async () => {
      const shop = await appWithTree();
      const blog = await newApp('Blog');
      expect((await call('POST', `/api/app/${shop.slug}/roles`, { name: 'Clerk' })).status).toBe(409);
      const other = await call('POST', `/api/app/${blog.slug}/roles`, { name: 'Clerk' });
      expect(other.body.slug).toBe(`${blog.slug}-clerk`);
    });

    it('keeps the name immutable and the tree acyclic', async () => {
      const shop = await appWithTree();
      const blog = await newApp('Blog');
      const blogClerk = (await call('POST', `/api/app/${blog.slug}/roles`, { name: 'Clerk' })).body.slug as string;
      const clerkPath = `/api/app/${shop.slug}/roles/${shop.clerk}`;
      const renamed = await call('PUT', clerkPath, { name: 'Cashier' });
      expect(renamed.status).toBe(400);
      expect(JSON.stringify(renamed.body)).toContain('name');
      const cycle = await call('PUT', `/api/app/${shop.slug}/roles/${shop.manager}`, { parent_role_slug: shop.clerk });
      expect(cycle.status).toBe(400);
      expect(cycle.body.errors).toHaveProperty('parent_role_slug');
      expect((await call('PUT', clerkPath, { parent_role_slug: shop.clerk })).status).toBe(400);
      const foreign = await call('PUT', clerkPath, { parent_role_slug: blogClerk });
      expect(foreign.status).toBe(400);
      const kept = await call('PUT', clerkPath, { description: 'tills', parent_role_slug: null });
      expect(kept.body).toMatchObject({ description: 'tills', parent_role_slug: shop.manager });
      const rooted = await call('PUT', clerkPath, { parent_role_slug: '' });
      expect(rooted.body).toMatchObject({ parent_id: null, parent_role_slug: null });
    });

    it('answers 404 for another app and unknown roles, and 403 to a caller without manage_site', async () => {
      const shop = await appWithTree();
      const blog = await newApp('Blog');
      expect((await call('GET', `/api/app/${blog.slug}/roles/${shop.clerk}`)).status).toBe(404);
      expect((await call('GET', '/api/app/nope/roles')).status).toBe(404);
      expect((await call('GET', `/api/app/${shop.slug}/roles`, undefined, viewer)).status).toBe(200);
      expect((await call('POST', `/api/app/${shop.slug}/roles`, { name: 'Sneaky' }, viewer)).status).toBe(403);
      expect((await app.request('GET', `/api/app/${shop.slug}/roles`, { headers: site.headers })).status).toBe(401);
    });

    it('moves children to the parent, or removes the subtree, on delete', async () => {
      const blog = (await newApp('Blog')).slug;
      await call('POST', `/api/app/${blog}/roles`, { name: 'Clerk' });
      await call('POST', `/api/app/${blog}/roles`, { name: 'Editor' });
      await call('POST', `/api/app/${blog}/roles`, { name: 'Writer', parent_role_slug: `${blog}-editor` });
      await call('POST', `/api/app/${blog}/roles`, { name: 'Intern', parent_role_slug: `${blog}-writer` });
      const kept = await call('DELETE', `/api/app/${blog}/roles/${blog}-writer?remove_child_roles=false`);
      expect(kept.status).toBe(200);
      expect(kept.body).toHaveProperty('message');
      expect(kept.body).toHaveProperty('detail');
      expect((await call('GET', `/api/app/${blog}/roles/${blog}-intern`)).body.parent_role_slug).toBe(`${blog}-editor`);
      await call('DELETE', `/api/app/${blog}/roles/${blog}-editor?remove_child_roles=true`);
      expect((await call('GET', `/api/app/${blog}/roles/${blog}-intern`)).status).toBe(404);
      expect((await call('GET', `/api/app/${blog}/roles`)).body.data.map((role: { slug: string }) => role.slug)).toEqual([`${blog}-clerk`]);
    });
  });

  describe('site roles', () => {
    it('creates a site role with app roles and replaces them on PUT', async () => {
      const shop = await appWithTree();
      const blog = await newApp('Blog');
      const blogClerk = (await call('POST', `/api/app/${blog.slug}/roles`, { name: 'Clerk' })).body.slug as string;
      const name = fresh('Staff');
      const created = await call('POST', '/api/roles/', { name, role_slugs: [shop.clerk, blogClerk] });
      expect(created.status).toBe(201);
      const slug = created.body.slug as string;
      expect(slug).toBe(name.toLowerCase());
      expect(created.body.app_roles.map((role: { slug: string }) => role.slug)).toEqual([blogClerk, shop.clerk].sort());
      const changed = await call('PUT', `/api/roles/${slug}`, { name: `Shop ${name}`, role_slugs: [shop.clerk] });
      expect(changed.body).toMatchObject({ name: `Shop ${name}`, slug });
      expect(changed.body.app_roles.map((role: { slug: string }) => role.slug)).toEqual([shop.clerk]);
      const list = await call('GET', '/api/roles/?page_size=100');
      expect(list.body).toMatchObject({ status: 'success' });
      const listed = list.body.data.filter((role: { slug: string }) => role.slug === slug);
      expect(listed).toHaveLength(1);
      expect(listed[0].app_roles).toHaveLength(1);
    });

    it('refuses unknown app roles and duplicate names', async () => {
      const taken = await newSiteRole('Taken');
      const unknown = await call('POST', '/api/roles/', { name: 'Ghosts', role_slugs: ['nope'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toHaveProperty('role_slugs');
      expect((await call('POST', '/api/roles/', { name: taken.name })).status).toBe(409);
      expect((await call('POST', '/api/roles/', { name: '' })).status).toBe(400);
      expect((await call('POST', '/api/roles/', { name: 'x'.repeat(101) })).status).toBe(400);
    });
  });

  describe('memberships', () => {
    it('assigns in bulk, skipping existing ones and reporting failures per pair', async () => {
      const shop = await appWithTree();
      const staff = await newSiteRole('Staff');
      const [alice, bob] = [await newMember(fresh('alice')), await newMember(fresh('bob'))];
      const done = await call('POST', '/api/assign/roles', { roles: [shop.clerk, staff.slug], usernames: [alice, bob] });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ message: expect.any(String) });
      const again = await call('POST', '/api/assign/roles', { roles: [shop.clerk, 'missing-role'], usernames: [alice, 'ghost'] });
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('partial_success');
      expect(again.body.data.failures).toEqual(
        expect.arrayContaining([
          { username: 'ghost', role: shop.clerk, error: 'User not found.' },
          { username: alice, role: 'missing-role', error: 'Role not found.' },
          { username: 'ghost', role: 'missing-role', error: 'Role not found.' },
        ]),
      );
      expect(again.body.data.failures).toHaveLength(3);
      const none = await call('POST', '/api/assign/roles', { roles: ['missing-role'], usernames: [alice] });
      expect(none.status).toBe(400);
      const [count] = await app.runtime.db.rows<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(schema)}.role_memberships
          where app_role_id = ${shop.clerkId} or site_role_id = ${staff.id}`,
      );
      expect(count!.n).toBe(4);
    });

    it('holds the bulk limits and a future expiry', async () => {
      const staff = await newSiteRole('Staff');
      const [alice, carol] = [await newMember(fresh('alice')), await newMember(fresh('carol'))];
      const tooMany = Array.from({ length: 101 }, (_, index) => `role-${index}`);
      expect((await call('POST', '/api/assign/roles', { roles: tooMany, usernames: [alice] })).status).toBe(400);
      expect((await call('POST', '/api/assign/roles', { roles: [staff.slug], usernames: [] })).status).toBe(400);
      const past = await call('POST', '/api/assign/roles', { roles: [staff.slug], usernames: [carol], expires_at: '2020-01-01T00:00:00Z' });
      expect(past.status).toBe(400);
      expect(past.body.errors).toHaveProperty('expires_at');
      expect((await call('POST', '/api/assign/roles', { roles: [staff.slug], usernames: [carol] }, viewer)).status).toBe(403);
      const until = new Date(Date.now() + 3_600_000).toISOString();
      expect(
        (await call('POST', '/api/assign/roles', { roles: [staff.slug], usernames: [carol], expires_at: until }, userManager)).status,
      ).toBe(200);
      expect((await call('GET', `/api/roles/${staff.slug}/users?username=${carol}`)).body.data[0].expires_at).toBe(until);
    });

    it('lists, adds, replaces, expires and removes the users of a role', async () => {
      const shop = await appWithTree();
      const [alice, bob, carol] = [await newMember(fresh('alice')), await newMember(fresh('bob')), await newMember(fresh('carol'))];
      expect((await call('POST', '/api/assign/roles', { roles: [shop.clerk], usernames: [alice, bob] })).status).toBe(200);
      const users = `/api/roles/${shop.clerk}/users`;
      const listed = await call('GET', `${users}?ordering=username`);
      expect(listed.body.total).toBe(2);
      expect(listed.body.data.map((user: { username: string }) => user.username)).toEqual([alice, bob]);
      expect(listed.body.data[0]).toMatchObject({
        username: alice,
        email: `${alice}@example.com`,
        first_name: alice.toUpperCase(),
        last_name: '',
      });
      expect((await call('POST', users, { usernames: [carol, alice] })).body.detail).toBe('1 changed, 1 skipped.');
      expect((await call('POST', users, { usernames: ['nobody'] })).status).toBe(400);
      await call('PUT', users, { usernames: [carol, bob] });
      const replaced = await call('GET', `${users}?ordering=username`);
      expect(replaced.body.data.map((user: { username: string }) => user.username)).toEqual([bob, carol]);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      expect((await call('PATCH', users, { usernames: [bob], expires_at: future })).status).toBe(200);
      expect((await call('PATCH', users, { usernames: [bob], expires_at: '2001-01-01T00:00:00Z' })).status).toBe(400);
      expect((await call('GET', `${users}?username=${bob}`)).body.data[0].expires_at).toBe(future);
      await call('DELETE', users, { usernames: [carol, alice] });
      expect((await call('GET', users)).body.total).toBe(1);
      expect((await call('GET', users, undefined, userManager)).status).toBe(200);
      expect((await call('GET', users, undefined, viewer)).status).toBe(403);
    });

    it('leaves expired memberships out unless include_expired, and PATCH null makes them permanent', async () => {
      const shop = await appWithTree();
      const blog = await newApp('Blog');
      const staff = await newSiteRole('Staff', [shop.clerk]);
      const [alice, bob] = [await newMember(fresh('alice')), await newMember(fresh('bob'))];
      expect((await call('POST', '/api/assign/roles', { roles: [shop.clerk, staff.slug], usernames: [bob] })).status).toBe(200);
      const users = `/api/roles/${shop.clerk}/users`;
      await app.runtime.db.run(sql`update ${sql.identifier(schema)}.role_memberships set expires_at = now() - interval '1 hour'
        where user_id = (select id from platform.users where username = ${bob}) and app_role_id is not null`);
      expect((await call('GET', users)).body.total).toBe(0);
      expect((await call('GET', `${users}?include_expired=true`)).body.total).toBe(1);
      const bobToken = (await app.login(bob, USER_PASSWORD)).access;
      await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, { token: admin, body: { users: [{ username: bob }] } });
      const mine = await call('GET', '/api/users/me/roles', undefined, bobToken);
      expect(mine.status).toBe(200);
      expect(mine.body.data.map((entry: { role: { slug: string } }) => entry.role.slug)).toEqual([staff.slug]);
      const withExpired = await call('GET', '/api/users/me/roles?include_expired=true&ordering=role_name', undefined, bobToken);
      expect(withExpired.body.data).toHaveLength(2);
      expect(withExpired.body.data.find((entry: { is_expired: boolean }) => entry.is_expired).role.slug).toBe(shop.clerk);
      await call('PATCH', users, { usernames: [bob], expires_at: null });
      expect((await call('GET', `/api/users/${bob}/roles?membership_type=app_role`)).body.data[0]).toMatchObject({
        membership_type: 'app_role',
        app_slug: shop.slug,
        expires_at: null,
        is_expired: false,
        assigned_by: 'admin',
      });
      expect((await call('GET', `/api/users/${bob}/roles?app=${blog.slug}`)).body.total).toBe(0);
      expect((await call('GET', `/api/users/${bob}/roles?app=${shop.slug}`)).body.total).toBe(2);
      expect((await call('GET', `/api/users/${alice}/roles`, undefined, bobToken)).status).toBe(403);
    });

    it('revokes in bulk, skipping missing memberships, and deleting a site role removes its memberships', async () => {
      const staff = await newSiteRole('Staff');
      const [alice, bob, carol] = [await newMember(fresh('alice')), await newMember(fresh('bob')), await newMember(fresh('carol'))];
      expect((await call('POST', '/api/assign/roles', { roles: [staff.slug], usernames: [alice, bob] })).status).toBe(200);
      const revoked = await call('DELETE', '/api/revoke/roles', { roles: [staff.slug], usernames: [alice, carol] });
      expect(revoked.status).toBe(200);
      expect((await call('GET', `/api/roles/${staff.slug}/users`)).body.data.map((user: { username: string }) => user.username)).toEqual([
        bob,
      ]);
      expect((await call('DELETE', `/api/roles/${staff.slug}`)).status).toBe(200);
      const [count] = await app.runtime.db.rows<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(schema)}.role_memberships where site_role_id = ${staff.id}`,
      );
      expect(count!.n).toBe(0);
      expect((await call('GET', `/api/roles/${staff.slug}`)).status).toBe(404);
    });
  });
});
