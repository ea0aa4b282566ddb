// Site permissions on tenant routes (a site's host or X-Tenant) count only for members of the site's
// organization: rows of site_user_permissions left behind by a membership that ended give nothing,
// while a member holding the same rows works as before and superusers keep their global rights.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`site permissions on tenant routes need membership, on ${testDriver}`, () => {
  let app: TestApp;
  let site: string;
  const tokens: Record<string, string> = {};

  const onSite = (who: string, method: string, path: string, body?: unknown) =>
    app.request(method, path, { token: tokens[who], body, headers: { 'x-tenant': site } });

  /** Makes `username` a plain member of the site's organization holding `codenames` on the site. */
  async function memberWithGrants(username: string, codenames: string[]): Promise<void> {
    await app.createUser(username);
    await app.runtime.db.run(sql`
      insert into platform.organization_members (organization_id, user_id)
      select s.organization_id, u.id from platform.sites s, platform.users u where s.slug = ${site} and u.username = ${username}`);
    await app.runtime.db.run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
      where s.slug = ${site} and u.username = ${username} and p.codename in ${codenames}`);
    tokens[username] = await app.tokenOf(username);
  }

  /** Deletes the membership row only, leaving the site grants behind (as older removals did). */
  async function endMembership(username: string): Promise<void> {
    await app.runtime.db.run(sql`
      delete from platform.organization_members m using platform.sites s, platform.users u
      where s.slug = ${site} and m.organization_id = s.organization_id and u.username = ${username} and m.user_id = u.id`);
  }

  beforeAll(async () => {
    app = await startTestApp();
    await app.createUser('tm-owner');
    tokens['tm-owner'] = await app.tokenOf('tm-owner');
    tokens.superuser = await app.adminToken();
    site = (await createSite(app, tokens['tm-owner']!, 'Member Gate')).slug;
    const made = await onSite('tm-owner', 'POST', '/api/apps/', { name: 'Ledger' });
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    await memberWithGrants('tm-member', ['access_site', 'manage_site']);
    await memberWithGrants('tm-former', ['access_site', 'manage_site']);
    await endMembership('tm-former');
  });
  afterAll(async () => {
    await app.close();
  });

  it('lets a member holding access_site and manage_site list the apps and datatables of the site', async () => {
    // Act
    const apps = await onSite('tm-member', 'GET', '/api/apps/');
    const tables = await onSite('tm-member', 'GET', '/api/apps/ledger/datatables/');

    // Assess
    expect(apps.status).toBe(200);
    expect(apps.body.map((one: { slug: string }) => one.slug)).toEqual(['ledger']);
    expect(tables.status).toBe(200);
  });

  it('answers 403 to a former member whose access_site and manage_site rows were left behind', async () => {
    // Prepare: the rows are still there
    const [left] = await app.runtime.db.rows<{ n: number }>(sql`
      select count(*)::int as n from platform.site_user_permissions sup join platform.users u on u.id = sup.user_id
      where u.username = 'tm-former'`);
    expect(Number(left!.n)).toBe(2);

    // Act
    const apps = await onSite('tm-former', 'GET', '/api/apps/');
    const tables = await onSite('tm-former', 'GET', '/api/apps/ledger/datatables/');
    const config = await onSite('tm-former', 'GET', '/api/sites/config/');
    const byHost = await app.request('GET', '/api/apps/', { token: tokens['tm-former'], headers: { host: `${site}.localhost` } });
    const write = await onSite('tm-former', 'POST', '/api/apps/', { name: 'Sneaky' });

    // Assess
    for (const answer of [apps, tables, config, byHost, write]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ status: 'error', code: expect.stringMatching(/^(FORBIDDEN|PERMISSION_DENIED)$/) });
    }
    const names = await onSite('tm-owner', 'GET', '/api/apps/');
    expect(names.body.map((one: { slug: string }) => one.slug)).toEqual(['ledger']);
  });

  it('gives the grants back their meaning when the membership returns', async () => {
    // Prepare
    await memberWithGrants('tm-returning', ['access_site']);
    await endMembership('tm-returning');
    const away = await onSite('tm-returning', 'GET', '/api/apps/');
    await app.runtime.db.run(sql`
      insert into platform.organization_members (organization_id, user_id)
      select s.organization_id, u.id from platform.sites s, platform.users u where s.slug = ${site} and u.username = 'tm-returning'`);

    // Act
    const back = await onSite('tm-returning', 'GET', '/api/apps/');

    // Assess
    expect(away.status).toBe(403);
    expect(back.status).toBe(200);
  });

  it('keeps a superuser who is not a member of the organization working on the site', async () => {
    // Act
    const apps = await onSite('superuser', 'GET', '/api/apps/');
    const tables = await onSite('superuser', 'GET', '/api/apps/ledger/datatables/');

    // Assess
    expect(apps.status).toBe(200);
    expect(tables.status).toBe(200);
  });
});
