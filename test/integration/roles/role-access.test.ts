// Roles take part in access decisions (issue 18): an app role's permissions count in its app, a site
// role's app roles count, a parent role can do what its descendants can, and only unexpired
// memberships of existing roles of this site count. Also the hostile chains: assigning yourself,
// handing out more than you hold, roles of another app or another site, expired and deleted roles.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

const TABLE = { fields: [{ name: 'title', type: 'string' }] };

describe('roles in access decisions', () => {
  let app: TestApp;
  let admin: string;
  let site: Awaited<ReturnType<typeof createSite>>;
  let otherSite: Awaited<ReturnType<typeof createSite>>;
  let schema: string;
  const tokens: Record<string, string> = {};
  const on = (target: { headers: Record<string, string> }, method: string, path: string, token: string, body?: unknown) =>
    app.request(method, path, { token, body, headers: target.headers });
  const call = (method: string, path: string, body?: unknown, token = admin) => on(site, method, path, token, body);
  const as = (name: string, method: string, path: string, body?: unknown) => call(method, path, body, tokens[name]);
  const assign = (roles: string[], usernames: string[], token = admin, extra: Record<string, unknown> = {}) =>
    call('POST', '/api/assign/roles', { roles, usernames, ...extra }, token);
  /** Makes `username` a member of the organization owning `target`, as roles there need. */
  const joins = async (username: string, target: { organization: string }) =>
    expect(
      (
        await app.request('POST', `/api/cloud/organizations/${target.organization}/members/`, {
          token: admin,
          body: { user_slug: username },
        })
      ).status,
    ).toBe(201);
  const readsShop = async (name: string) => (await as(name, 'GET', '/api/apps/shop/datasources/')).status;
  const writesShop = async (name: string) =>
    (await as(name, 'POST', '/api/apps/shop/datatables/notes/data/', { title: `by ${name}` })).status;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Role Access');
    otherSite = await createSite(app, admin, 'Role Elsewhere');
    for (const name of ['holder', 'senior', 'staffer', 'usermgr', 'expiring', 'stranger']) await app.createUser(name);
    // Roles go only to members of the site's organization: the stranger belongs to the other site's.
    for (const name of ['holder', 'senior', 'staffer', 'usermgr', 'expiring']) await joins(name, site);
    await joins('stranger', otherSite);
    const granted = await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: admin,
      body: { users: [{ username: 'usermgr', permissions: ['manage_site_users'] }] },
    });
    expect(granted.status).toBe(200);
    for (const name of ['holder', 'senior', 'staffer', 'usermgr', 'expiring', 'stranger'])
      tokens[name] = (await app.login(name, USER_PASSWORD)).access;
    for (const target of [site, otherSite]) {
      for (const name of ['Shop', 'Blog']) expect((await on(target, 'POST', '/api/apps/', admin, { name })).status).toBe(201);
    }
    expect((await call('POST', '/api/apps/shop/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    expect((await call('POST', '/api/apps/shop/datasources/main/datatables/', { name: 'notes', json_schema: TABLE })).status).toBe(201);
    expect((await call('POST', '/api/apps/shop/datatables/notes/materialize/')).status).toBe(200);
    const roles = [
      ['shop', { name: 'Manager', permissions: ['manage_site'] }],
      ['shop', { name: 'Clerk', permissions: ['access_site'], parent_role_slug: 'shop-manager' }],
      ['shop', { name: 'Reader', permissions: ['view_site'], parent_role_slug: 'shop-clerk' }],
      ['shop', { name: 'Badge', permissions: [] }],
      ['blog', { name: 'Writer', permissions: ['access_site'] }],
    ] as const;
    for (const [appSlug, body] of roles) expect((await call('POST', `/api/app/${appSlug}/roles`, body)).status).toBe(201);
    expect((await call('POST', '/api/roles/', { name: 'Staff', role_slugs: ['shop-clerk'] })).status).toBe(201);
    // The same role names in the other site: its memberships must never count here, nor ours there.
    expect((await on(otherSite, 'POST', '/api/app/shop/roles', admin, { name: 'Manager', permissions: ['manage_site'] })).status).toBe(201);
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    schema = row!.schema_name;
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers role permissions and refuses names outside the app role vocabulary', async () => {
    const clerk = await call('GET', '/api/app/shop/roles/shop-clerk');
    expect(clerk.body).toMatchObject({ permissions: ['access_site'], parent_role_slug: 'shop-manager' });
    const bad = await call('POST', '/api/app/shop/roles', { name: 'Boss', permissions: ['admin_site'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('permissions');
    expect((await call('POST', '/api/app/shop/roles', { name: 'Proto', permissions: ['__proto__'] })).status).toBe(400);
    const kept = await call('PUT', '/api/app/shop/roles/shop-badge', { description: 'a badge' });
    expect(kept.body.permissions).toEqual([]);
  });

  it('gives no access without a role, access through a role, and takes it on revoke', async () => {
    expect(await readsShop('holder')).toBe(403);
    expect((await assign(['shop-reader'], ['holder'])).status).toBe(200);
    expect(await readsShop('holder')).toBe(200);
    expect(await writesShop('holder')).toBe(403);
    expect((await call('DELETE', '/api/revoke/roles', { roles: ['shop-reader'], usernames: ['holder'] })).status).toBe(200);
    expect(await readsShop('holder')).toBe(403);
  });

  /** The texts of the statements the platform runs while `work` runs. */
  async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    const dialect = new PgDialect();
    const rows = vi.spyOn(app.runtime.db, 'rows');
    const together = vi.spyOn(app.runtime.db, 'rowsTogether');
    try {
      await work();
      const statements = [...rows.mock.calls.map(([statement]) => statement), ...together.mock.calls.flatMap(([sent]) => sent)];
      return statements.map((statement) => dialect.sqlToQuery(statement).sql);
    } finally {
      rows.mockRestore();
      together.mockRestore();
    }
  }

  it('reads only whether a role is held for a caller who held none, and counts a role given since at once', async () => {
    await app.createUser('late-holder');
    await joins('late-holder', site);
    const token = (await app.login('late-holder', USER_PASSWORD)).access;
    const reads = async (status: number) =>
      statementsOf(async () => expect((await on(site, 'GET', '/api/apps/shop/datasources/', token)).status).toBe(status));
    await reads(403);
    // Known to hold none: the caller statement asks only whether one is held, and nothing reads grants.
    const without = await reads(403);
    expect(without.filter((text) => text.includes('from platform.users u') && text.includes('role_memberships'))).toHaveLength(1);
    expect(without.filter((text) => text.includes('with recursive held'))).toEqual([]);
    // Given a role, the next request counts it, reading the grants after the caller statement said one is held...
    expect((await assign(['shop-reader'], ['late-holder'])).status).toBe(200);
    const given = await reads(200);
    expect(given.filter((text) => text.includes('with recursive held'))).toEqual([expect.not.stringContaining('from platform.users u')]);
    // ...and the one after reads them in the caller statement again.
    const held = await reads(200);
    expect(held.filter((text) => text.includes('with recursive held'))).toEqual([expect.stringContaining('from platform.users u')]);
    expect((await call('DELETE', '/api/revoke/roles', { roles: ['shop-reader'], usernames: ['late-holder'] })).status).toBe(200);
    await reads(403);
  });

  it("reads a role holder's grants in the caller-and-site statement once the host's site is known", async () => {
    await app.createUser('fused-holder');
    await joins('fused-holder', site);
    const token = (await app.login('fused-holder', USER_PASSWORD)).access;
    expect((await assign(['shop-reader'], ['fused-holder'])).status).toBe(200);
    expect((await on(site, 'GET', '/api/apps/shop/datasources/', token)).status).toBe(200);
    // The next request from the same host: one statement reads caller, site and role grants.
    const texts = await statementsOf(async () => expect((await on(site, 'GET', '/api/apps/shop/datasources/', token)).status).toBe(200));
    const roleReads = texts.filter((text) => text.includes('role_memberships'));
    expect(roleReads).toHaveLength(1);
    expect(roleReads[0]).toContain('from platform.users u');
    // Revoked, the same fused read refuses at once.
    expect((await call('DELETE', '/api/revoke/roles', { roles: ['shop-reader'], usernames: ['fused-holder'] })).status).toBe(200);
    expect((await on(site, 'GET', '/api/apps/shop/datasources/', token)).status).toBe(403);
    // A guess made on one site is never taken for another: the other site's roles are its own.
    expect((await on(otherSite, 'GET', '/api/apps/shop/datasources/', token)).status).toBe(403);
  });

  it('lets a parent role do what its descendants can, and not the other way round', async () => {
    await assign(['shop-manager'], ['senior']);
    expect(await readsShop('senior')).toBe(200);
    expect(await writesShop('senior')).toBe(201);
    expect((await as('senior', 'POST', '/api/apps/shop/datasources/', { name: 'Extra', provider_type: 'flat_table' })).status).toBe(201);
    // manage_site through a role does not define roles (a holder could raise their own): that takes
    // manage_site on the site itself. Nor does it reach outside shop.
    expect((await as('senior', 'POST', '/api/app/shop/roles', { name: 'Temp' })).status).toBe(403);
    expect((await as('senior', 'GET', '/api/app/blog/roles')).status).toBe(403);
    expect((await as('senior', 'POST', '/api/apps/', { name: 'Mine' })).status).toBe(403);
    await assign(['shop-reader'], ['holder']);
    expect(await writesShop('holder')).toBe(403);
    expect((await as('holder', 'POST', '/api/apps/shop/datasources/', { name: 'No', provider_type: 'flat_table' })).status).toBe(403);
  });

  it("counts a site role's app roles, with their descendants", async () => {
    await assign(['staff'], ['staffer']);
    expect(await writesShop('staffer')).toBe(201);
    expect((await as('staffer', 'GET', '/api/apps/blog/datasources/')).status).toBe(403);
    // Dropping the app role from the site role takes the access with it.
    await call('PUT', '/api/roles/staff', { role_slugs: ['blog-writer'] });
    expect(await readsShop('staffer')).toBe(403);
    expect((await as('staffer', 'GET', '/api/apps/blog/datasources/')).status).toBe(200);
  });

  it('lets role holders read their own roles, and no other user’s', async () => {
    const mine = await as('staffer', 'GET', '/api/users/me/roles');
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((row: { role: { slug: string } }) => row.role.slug)).toEqual(['staff']);
    expect((await as('staffer', 'GET', '/api/users/senior/roles')).status).toBe(403);
    expect((await as('stranger', 'GET', '/api/users/me/roles')).status).toBe(403);
    // Holding a role opens no other site-wide route.
    expect((await as('staffer', 'GET', '/api/apps/')).status).toBe(403);
    expect((await as('staffer', 'GET', '/api/secrets/')).status).toBe(403);
  });

  it('stops counting a membership once it has expired', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    expect((await assign(['shop-clerk'], ['expiring'], admin, { expires_at: soon })).status).toBe(200);
    expect(await writesShop('expiring')).toBe(201);
    // Time passes: the membership's end is now behind us.
    await app.runtime.db.run(sql`update ${sql.identifier(schema)}.role_memberships set expires_at = now() - interval '1 second'
      where user_id = (select id from platform.users where username = 'expiring')`);
    expect(await readsShop('expiring')).toBe(403);
    expect((await as('expiring', 'GET', '/api/users/me/roles')).status).toBe(403);
    // Made permanent again (PATCH with null), it counts again.
    expect((await call('PATCH', '/api/roles/shop-clerk/users', { usernames: ['expiring'], expires_at: null })).status).toBe(200);
    expect(await writesShop('expiring')).toBe(201);
  });

  it('takes access away when the role is deleted while assigned', async () => {
    await call('POST', '/api/app/blog/roles', { name: 'Guest', permissions: ['view_site'] });
    await assign(['blog-guest'], ['holder']);
    expect((await as('holder', 'GET', '/api/apps/blog/datasources/')).status).toBe(200);
    expect((await call('DELETE', '/api/app/blog/roles/blog-guest')).status).toBe(200);
    expect((await as('holder', 'GET', '/api/apps/blog/datasources/')).status).toBe(403);
  });

  it('counts no role of another site, and roles of this site nowhere else', async () => {
    await on(otherSite, 'POST', '/api/assign/roles', admin, { roles: ['shop-manager'], usernames: ['stranger'] });
    expect((await on(otherSite, 'GET', '/api/apps/shop/datasources/', tokens.stranger!)).status).toBe(200);
    expect(await readsShop('stranger')).toBe(403);
    expect((await on(otherSite, 'GET', '/api/apps/shop/datasources/', tokens.senior!)).status).toBe(403);
  });

  it('keeps the tree acyclic when two moves race', async () => {
    for (const name of ['Left', 'Right']) expect((await on(otherSite, 'POST', '/api/app/blog/roles', admin, { name })).status).toBe(201);
    const moves = await Promise.all([
      on(otherSite, 'PUT', '/api/app/blog/roles/blog-left', admin, { parent_role_slug: 'blog-right' }),
      on(otherSite, 'PUT', '/api/app/blog/roles/blog-right', admin, { parent_role_slug: 'blog-left' }),
    ]);
    expect(moves.map((move) => move.status).sort()).toEqual([200, 400]);
    const roles = (await on(otherSite, 'GET', '/api/app/blog/roles', admin)).body.data as Array<{
      slug: string;
      parent_role_slug: string | null;
    }>;
    expect(roles.filter((role) => role.parent_role_slug === null)).toHaveLength(1);
  });

  describe('assigners', () => {
    it('cannot assign roles to themselves', async () => {
      const self = await assign(['shop-reader'], ['usermgr'], tokens.usermgr);
      expect(self.status).toBe(400);
      expect(self.body.data.failures).toEqual([{ username: 'usermgr', role: 'shop-reader', error: expect.stringMatching(/yourself/) }]);
      expect((await call('POST', '/api/roles/shop-reader/users', { usernames: ['usermgr'] }, tokens.usermgr)).status).toBe(403);
      expect((await as('usermgr', 'GET', '/api/users/me/roles')).body.total).toBe(0);
    });

    it('cannot hand out more than they hold, through a role, a parent role or a site role', async () => {
      await app.createUser('newcomer');
      await joins('newcomer', site);
      const reader = await assign(['shop-reader'], ['newcomer'], tokens.usermgr);
      expect(reader.status).toBe(200);
      const answer = await assign(['shop-clerk', 'shop-manager', 'staff', 'shop-badge'], ['newcomer'], tokens.usermgr);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('partial_success');
      expect(answer.body.data.failures.map((failure: { role: string }) => failure.role).sort()).toEqual([
        'shop-clerk',
        'shop-manager',
        'staff',
      ]);
      for (const slug of ['shop-clerk', 'shop-manager']) {
        expect((await call('PUT', `/api/roles/${slug}/users`, { usernames: ['newcomer'] }, tokens.usermgr)).status).toBe(403);
      }
      const roles = await call('GET', '/api/users/newcomer/roles');
      expect(roles.body.data.map((row: { role: { slug: string } }) => row.role.slug).sort()).toEqual(['shop-badge', 'shop-reader']);
    });

    it('cannot use a role slug of another site or a role that does not exist', async () => {
      const foreign = await on(otherSite, 'GET', '/api/app/shop/roles', admin);
      expect(foreign.body.data.map((role: { slug: string }) => role.slug)).toEqual(['shop-manager']);
      const answer = await assign(['shop-nope'], ['holder']);
      expect(answer.status).toBe(400);
      expect(answer.body.data.failures[0].error).toMatch(/not found/i);
    });
  });
});
