import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

/**
 * Two organizations, each with a site (schema, domain, site permissions), invitations, an exclusive
 * member and one member shared with the other. Deleting "doomed" must remove exactly the States
 * table's cascade and leave "keeper" byte-for-byte as it was.
 */
describe('organization delete', () => {
  let app: TestApp;

  const db = () => app.runtime.db;

  async function buildOrganization(name: string, slug: string, owner: string, members: string[]): Promise<void> {
    const token = await app.tokenOf(owner);
    const created = await app.request('POST', '/api/cloud/organizations/', { token, body: { name } });
    expect(created.status).toBe(201);
    const schemaName = `t_${slug}_site`;
    await createTenantSchema(db(), schemaName);
    await db().run(sql`create table ${sql.identifier(schemaName)}.notes (id serial primary key, body text)`);
    await db().run(sql`insert into ${sql.identifier(schemaName)}.notes (body) values ('tenant data')`);
    await db().run(sql`
      insert into platform.sites (organization_id, slug, name, schema_name)
      select id, ${`${slug}-site`}, ${`${name} Site`}, ${schemaName} from platform.organizations where slug = ${slug}`);
    await db().run(sql`
      insert into platform.domains (site_id, slug, domain, is_primary)
      select id, ${`${slug}-site-localhost`}, ${`${slug}-site.localhost`}, true from platform.sites where slug = ${`${slug}-site`}`);
    for (const member of members) {
      // Direct adds need authority over the user: the superuser's.
      const added = await app.request('POST', `/api/cloud/organizations/${slug}/members/`, {
        token: await app.adminToken(),
        body: { user_slug: member, sites: [{ slug: `${slug}-site`, permissions: ['view_site', 'access_site'] }] },
      });
      expect(added.status).toBe(201);
    }
    const invited = await app.request('POST', `/api/cloud/organizations/${slug}/invitations/`, {
      token,
      body: { invitee_identifier: `invitee-of-${slug}@example.com`, invitation_config: { site: [{ slug: `${slug}-site` }] } },
    });
    expect(invited.status).toBe(201);
  }

  /** Every row of the keeper organization and its people, as text, so any change shows. */
  async function snapshot(orgSlug: string, usernames: string[]) {
    const rowsOf = async (query: SQL) => (await db().rows<{ row: string }>(query)).map((row) => row.row);
    const org = sql`(select id from platform.organizations where slug = ${orgSlug})`;
    const siteIds = sql`(select id from platform.sites where organization_id = ${org})`;
    return {
      organization: await rowsOf(sql`select row_to_json(t)::text as row from platform.organizations t where t.id = ${org}`),
      members: await rowsOf(
        sql`select row_to_json(t)::text as row from platform.organization_members t where t.organization_id = ${org} order by t.id`,
      ),
      sites: await rowsOf(sql`select row_to_json(t)::text as row from platform.sites t where t.organization_id = ${org} order by t.id`),
      domains: await rowsOf(sql`select row_to_json(t)::text as row from platform.domains t where t.site_id in ${siteIds} order by t.id`),
      sitePermissions: await rowsOf(
        sql`select row_to_json(t)::text as row from platform.site_user_permissions t where t.site_id in ${siteIds} order by t.user_id, t.permission_id`,
      ),
      invitations: await rowsOf(
        sql`select row_to_json(t)::text as row from platform.invitations t where t.organization_id = ${org} order by t.id`,
      ),
      users: await rowsOf(
        sql`select row_to_json(t)::text as row from platform.users t where t.username = any(${sql.param(usernames)}::text[]) order by t.id`,
      ),
      tenantData: await rowsOf(sql`select row_to_json(t)::text as row from t_keeper_site.notes t order by t.id`),
    };
  }

  async function schemaExists(name: string): Promise<boolean> {
    const rows = await db().rows(sql`select 1 from pg_namespace where nspname = ${name}`);
    return rows.length > 0;
  }

  beforeAll(async () => {
    app = await startTestApp();
    for (const name of ['doomed-owner', 'doomed-only', 'shared', 'keeper-owner', 'keeper-only']) await app.createUser(name);
    await buildOrganization('Doomed', 'doomed', 'doomed-owner', ['doomed-only', 'shared']);
    await buildOrganization('Keeper', 'keeper', 'keeper-owner', ['keeper-only', 'shared']);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a member who is not the owner and leaves everything in place', async () => {
    const answer = await app.request('DELETE', '/api/cloud/organizations/doomed/', { token: await app.tokenOf('doomed-only') });
    expect(answer.status).toBe(403);
    expect(await schemaExists('t_doomed_site')).toBe(true);
  });

  it('removes the organization with exactly the cascade of the States table and leaves the other untouched', async () => {
    // Prepare
    const keeperPeople = ['keeper-owner', 'keeper-only', 'shared'];
    const before = await snapshot('keeper', keeperPeople);
    expect(before.sites).toHaveLength(1);
    expect(before.sitePermissions.length).toBeGreaterThan(0);
    const [doomed] = await db().rows<{ id: number }>(sql`select id from platform.organizations where slug = 'doomed'`);
    const [doomedSite] = await db().rows<{ id: number }>(sql`select id from platform.sites where slug = 'doomed-site'`);

    // Act
    const answer = await app.request('DELETE', '/api/cloud/organizations/doomed/', { token: await app.tokenOf('doomed-owner') });

    // Assess: the organization and everything that hung on it are gone
    expect(answer.status).toBe(204);
    const count = async (query: SQL) => Number((await db().rows<{ n: number }>(query))[0]!.n);
    expect(await count(sql`select count(*)::int as n from platform.organizations where id = ${doomed!.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from platform.organization_members where organization_id = ${doomed!.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from platform.invitations where organization_id = ${doomed!.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from platform.sites where organization_id = ${doomed!.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from platform.domains where site_id = ${doomedSite!.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from platform.site_user_permissions where site_id = ${doomedSite!.id}`)).toBe(0);
    expect(await schemaExists('t_doomed_site')).toBe(false);

    // Users in no other organization are soft-deleted; the shared one is untouched
    const people = await db().rows<{
      username: string;
      is_deleted: boolean;
      is_active: boolean;
      deleted: boolean;
      tokens_cut: boolean;
    }>(sql`
      select username, is_deleted, is_active, deleted_at is not null as deleted, tokens_valid_after is not null as tokens_cut
      from platform.users where username in ('doomed-owner', 'doomed-only', 'shared') order by username`);
    expect(people).toEqual([
      { username: 'doomed-only', is_deleted: true, is_active: false, deleted: true, tokens_cut: true },
      { username: 'doomed-owner', is_deleted: true, is_active: false, deleted: true, tokens_cut: true },
      { username: 'shared', is_deleted: false, is_active: true, deleted: false, tokens_cut: false },
    ]);
    const signIn = await app.request('POST', '/api/auth/jwt/token/', { body: { username: 'doomed-only', password: USER_PASSWORD } });
    expect(signIn.status).toBe(401);

    // The other organization is byte-for-byte as it was, its schema and tenant data included
    expect(await snapshot('keeper', keeperPeople)).toEqual(before);
    expect(await schemaExists('t_keeper_site')).toBe(true);
  });

  it('answers 404 once the organization is gone', async () => {
    const answer = await app.request('GET', '/api/cloud/organizations/doomed/', { token: await app.adminToken() });
    expect(answer.status).toBe(404);
  });

  it('lets a superuser delete any organization without soft-deleting the superuser', async () => {
    const admin = await app.adminToken();
    const created = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Scratch' } });
    const answer = await app.request('DELETE', `/api/cloud/organizations/${created.body.data.uuid}/`, { token: admin });
    expect(answer.status).toBe(204);
    const [row] = await db().rows<{ is_deleted: boolean }>(sql`select is_deleted from platform.users where username = 'admin'`);
    expect(row!.is_deleted).toBe(false);
  });
});
