// A soft-deleted user loses their organization memberships (spec, States) and with them every site
// permission, so a restore brings back the account but no access; and a site permission whose
// holder is no longer a member of the site's organization gives nothing (spec, user-site rules).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('site access after a soft delete and restore', () => {
  let app: TestApp;
  let admin: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
  });
  afterAll(async () => {
    await app.close();
  });

  /** An organization of `owner` with one site; its slug and the site's. */
  async function organizationWithSite(owner: string, name: string): Promise<{ org: string; site: string }> {
    const token = await app.tokenOf(owner);
    const org = await app.request('POST', '/api/cloud/organizations/', { token, body: { name: `${name} org` } });
    expect(org.status).toBe(201);
    const site = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { token, body: { name } });
    expect(site.status).toBe(201);
    return { org: org.body.data.slug, site: site.body.slug };
  }

  async function grantsOf(username: string): Promise<number> {
    const [row] = await app.runtime.db.rows<{ n: number }>(sql`
      select count(*)::int as n from platform.site_user_permissions sup
      join platform.users u on u.id = sup.user_id where u.username = ${username}`);
    return Number(row!.n);
  }

  it('clears the site permissions of a soft-deleted user, so a restored user has no site access', async () => {
    // Prepare: sd-bob is a member of sd-alice's organization with every permission on its site
    await app.createUser('sd-alice');
    await app.createUser('sd-bob');
    const { org, site } = await organizationWithSite('sd-alice', 'Soft Shop');
    const added = await app.request('POST', `/api/cloud/organizations/${org}/members/`, {
      token: admin,
      body: {
        user_slug: 'sd-bob',
        sites: [{ slug: site, permissions: ['view_site', 'access_site', 'manage_site', 'manage_site_users', 'admin_site'] }],
      },
    });
    expect(added.status).toBe(201);
    expect(await grantsOf('sd-bob')).toBe(5);

    // Act: soft delete, then restore
    const deleted = await app.request('DELETE', '/api/cloud/users/sd-bob/', { token: admin });
    const restored = await app.request('POST', '/api/cloud/users/sd-bob/restore/', { token: admin });

    // Assess: no membership, no stored grant, no access
    expect(deleted.status).toBe(204);
    expect(restored.status).toBe(200);
    expect(await grantsOf('sd-bob')).toBe(0);
    const bob = await app.tokenOf('sd-bob');
    const detail = await app.request('GET', '/api/cloud/users/sd-bob/', { token: bob });
    expect(detail.body.organizations).toEqual([]);
    const privileges = await app.request('GET', `/api/cloud/sites/${site}/privileges/`, { token: bob });
    expect(privileges.status).toBe(404);
    expect(privileges.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    const listed = await app.request('GET', '/api/cloud/sites/', { token: bob });
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual([]);
  });

  it('gives nothing for a site permission whose holder is not a member of the site organization', async () => {
    // Prepare: a grant left behind without a membership (as one made before soft deletes cleared them)
    await app.createUser('sd-carol');
    await app.createUser('sd-dave');
    const { site } = await organizationWithSite('sd-carol', 'Stale Shop');
    await app.runtime.db.run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
      where s.slug = ${site} and u.username = 'sd-dave' and p.codename in ('admin_site', 'view_site')`);
    const dave = await app.tokenOf('sd-dave');

    // Act
    const privileges = await app.request('GET', `/api/cloud/sites/${site}/privileges/`, { token: dave });
    const detail = await app.request('GET', `/api/cloud/sites/${site}/`, { token: dave });
    const listed = await app.request('GET', '/api/cloud/sites/', { token: dave });

    // Assess
    expect(privileges.status).toBe(404);
    expect(detail.status).toBe(404);
    expect(detail.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    expect(listed.body.results).toEqual([]);
  });
});
