import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('organization members API', () => {
  let app: TestApp;
  let owner: string;
  const ORG = 'crew';
  const members = `/api/cloud/organizations/${ORG}/members/`;
  let site: { uuid: string; slug: string };
  let foreignSite: { uuid: string; slug: string };
  let groupIds: { editors: number; readers: number };

  const usernames = (body: { results: Array<{ username: string }> }) => body.results.map((member) => member.username);

  async function addSite(orgSlug: string, slug: string): Promise<{ uuid: string; slug: string }> {
    const schemaName = `t_${slug.replace(/-/g, '_')}`;
    await createTenantSchema(app.runtime.db, schemaName);
    const [row] = await app.runtime.db.rows<{ uuid: string; slug: string }>(sql`
      insert into platform.sites (organization_id, slug, name, schema_name)
      select id, ${slug}, ${`Site ${slug}`}, ${schemaName} from platform.organizations where slug = ${orgSlug}
      returning uuid::text as uuid, slug`);
    return row!;
  }

  beforeAll(async () => {
    app = await startTestApp();
    for (const name of ['crew-owner', 'crew-a', 'crew-b', 'crew-c', 'crew-manager', 'outsider', 'other-owner']) {
      await app.createUser(name, { first_name: name === 'crew-b' ? 'Beatrix' : '' });
    }
    owner = await app.tokenOf('crew-owner');
    await app.request('POST', '/api/cloud/organizations/', { token: owner, body: { name: 'Crew' } });
    await app.request('POST', '/api/cloud/organizations/', { token: await app.tokenOf('other-owner'), body: { name: 'Other' } });
    site = await addSite(ORG, 'crew-site');
    foreignSite = await addSite('other', 'other-site');
    const groups = await app.runtime.db.rows<{ id: number; name: string }>(
      sql`insert into platform.groups (name) values ('editors'), ('readers') returning id, name`,
    );
    groupIds = {
      editors: groups.find((group) => group.name === 'editors')!.id,
      readers: groups.find((group) => group.name === 'readers')!.id,
    };
  });
  afterAll(async () => {
    await app.close();
  });

  describe('add', () => {
    it('adds a user by user_slug with global groups and site permissions, view_site by default', async () => {
      // Act: the superuser holds authority over every account
      const answer = await app.request('POST', members, {
        token: await app.adminToken(),
        body: {
          user_slug: 'crew-a',
          group_ids: [groupIds.editors],
          sites: [{ slug: 'crew-site', permissions: ['manage_site', 'view_site'] }],
        },
      });
      // Assess
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        username: 'crew-a',
        email: 'crew-a@example.com',
        is_admin: false,
        is_owner: false,
        is_active: true,
        groups: [{ id: groupIds.editors, name: 'editors' }],
        sites: [{ uuid: site.uuid, name: 'Site crew-site', schema_name: 't_crew_site', permissions: ['manage_site', 'view_site'] }],
      });
      const grants = await app.runtime.db.rows<{ codename: string }>(sql`
        select p.codename from platform.site_user_permissions sup
        join platform.permissions p on p.id = sup.permission_id
        join platform.users u on u.id = sup.user_id where u.username = 'crew-a' order by 1`);
      expect(grants.map((row) => row.codename)).toEqual(['manage_site', 'view_site']);

      const byUserId = await app.request('POST', members, {
        token: await app.adminToken(),
        body: { user_id: 'crew-b', sites: [{ slug: 'crew-site' }] },
      });
      expect(byUserId.status).toBe(201);
      expect(byUserId.body.sites[0].permissions).toEqual(['view_site']);
      expect((await app.request('POST', members, { token: await app.adminToken(), body: { user_id: 'crew-c' } })).status).toBe(201);
    });

    it('answers 409 for a user who is already a member', async () => {
      const answer = await app.request('POST', members, { token: owner, body: { user_slug: 'crew-a' } });
      expect(answer.status).toBe(409);
    });

    it('answers 404 for an unknown user and for a user beyond the owner’s authority, with the same body', async () => {
      const unknown = await app.request('POST', members, { token: owner, body: { user_slug: 'nobody' } });
      const stranger = await app.request('POST', members, { token: owner, body: { user_slug: 'outsider' } });
      expect(unknown.status).toBe(404);
      expect(stranger.status).toBe(404);
      expect(stranger.body).toEqual(unknown.body);
    });

    it('answers 400 naming the field for an unknown group, foreign site or site permission, or no user at all', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ user_slug: 'outsider', group_ids: [999_999] }, 'group_ids'],
        [{ user_slug: 'outsider', sites: [{ slug: foreignSite.slug }] }, 'sites'],
        [{ user_slug: 'outsider', sites: [{ slug: 'crew-site', permissions: ['rule_the_world'] }] }, 'sites'],
        [{}, 'user_slug'],
        [{ user_slug: 'outsider', group_ids: 'all' }, 'group_ids'],
      ];
      for (const [body, field] of cases) {
        const answer = await app.request('POST', members, { token: await app.adminToken(), body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(Object.keys(answer.body.errors)).toEqual([field]);
      }
      const [row] = await app.runtime.db.rows(sql`
        select 1 from platform.organization_members m join platform.users u on u.id = m.user_id where u.username = 'outsider'`);
      expect(row).toBeUndefined();
    });

    it('refuses a plain member with 403 and a non-member with 404', async () => {
      const asMember = await app.request('POST', members, { token: await app.tokenOf('crew-a'), body: { user_slug: 'outsider' } });
      expect(asMember.status).toBe(403);
      const asOutsider = await app.request('POST', members, { token: await app.tokenOf('outsider'), body: { user_slug: 'outsider' } });
      expect(asOutsider.status).toBe(404);
    });
  });

  describe('list', () => {
    it('lists members in Envelope C to any member, ordered by username', async () => {
      const answer = await app.request('GET', members, { token: await app.tokenOf('crew-c') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ count: 4, next: null, previous: null });
      expect(usernames(answer.body)).toEqual(['crew-a', 'crew-b', 'crew-c', 'crew-owner']);
    });

    it('filters on is_admin, searches names and orders', async () => {
      const admins = await app.request('GET', `${members}?is_admin=true`, { token: owner });
      expect(usernames(admins.body)).toEqual(['crew-owner']);
      const searched = await app.request('GET', `${members}?search=beatrix`, { token: owner });
      expect(usernames(searched.body)).toEqual(['crew-b']);
      const ordered = await app.request('GET', `/api/organizations/${ORG}/members/?ordering=-username&page_size=2`, { token: owner });
      expect(usernames(ordered.body)).toEqual(['crew-owner', 'crew-c']);
      expect(ordered.body.count).toBe(4);
      expect(ordered.body.next).toContain('page=2');
    });

    it('hides inactive users unless user__is_active says otherwise', async () => {
      await app.request('PATCH', '/api/cloud/users/crew-c/', { token: await app.adminToken(), body: { is_active: false } });
      const byDefault = await app.request('GET', members, { token: owner });
      expect(usernames(byDefault.body)).not.toContain('crew-c');
      const inactive = await app.request('GET', `${members}?user__is_active=false`, { token: owner });
      expect(usernames(inactive.body)).toEqual(['crew-c']);
      const all = await app.request('GET', `${members}?user__is_active=all&user__is_deleted=all`, { token: owner });
      expect(all.body.count).toBe(4);
      await app.request('PATCH', '/api/cloud/users/crew-c/', { token: await app.adminToken(), body: { is_active: true } });
    });

    it('answers 400 for a bad filter and 404 to a non-member', async () => {
      expect((await app.request('GET', `${members}?is_admin=perhaps`, { token: owner })).status).toBe(400);
      expect((await app.request('GET', `${members}?ordering=password_hash`, { token: owner })).status).toBe(400);
      expect((await app.request('GET', members, { token: await app.tokenOf('outsider') })).status).toBe(404);
    });
  });

  describe('detail and PUT', () => {
    it('shows a member with groups and site permissions', async () => {
      const answer = await app.request('GET', `${members}crew-a/`, { token: await app.tokenOf('crew-b') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        username: 'crew-a',
        groups: [{ id: groupIds.editors, name: 'editors' }],
        sites: [{ uuid: site.uuid, permissions: ['manage_site', 'view_site'] }],
      });
      expect(Object.keys(answer.body)).toEqual(
        expect.arrayContaining([
          'uuid',
          'username',
          'email',
          'first_name',
          'last_name',
          'is_active',
          'is_admin',
          'is_owner',
          'groups',
          'sites',
        ]),
      );
    });

    it('answers 404 for a user who is not a member', async () => {
      expect((await app.request('GET', `${members}outsider/`, { token: owner })).status).toBe(404);
    });

    it('replaces groups and site permissions and sets is_admin', async () => {
      const answer = await app.request('PUT', `${members}crew-a/`, {
        token: owner,
        body: { is_admin: true, groups: [groupIds.readers], site: [{ uuid: site.uuid, permissions: ['access_site'] }] },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        is_admin: true,
        groups: [{ id: groupIds.readers, name: 'readers' }],
        sites: [{ uuid: site.uuid, permissions: ['access_site'] }],
      });
      const cleared = await app.request('PUT', `${members}crew-a/`, { token: owner, body: { site: [] } });
      expect(cleared.body.sites).toEqual([]);
    });

    it('refuses a site of another organization with 400', async () => {
      const answer = await app.request('PUT', `${members}crew-a/`, { token: owner, body: { site: [{ uuid: foreignSite.uuid }] } });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.errors)).toEqual(['site']);
    });

    it('refuses a plain member with 403', async () => {
      const answer = await app.request('PUT', `${members}crew-b/`, { token: await app.tokenOf('crew-c'), body: { is_admin: true } });
      expect(answer.status).toBe(403);
    });
  });

  describe('admins', () => {
    it('lets a manage_organization holder make and remove admins', async () => {
      await app.request('POST', members, {
        token: await app.adminToken(),
        body: { user_slug: 'crew-manager', permissions: ['manage_organization'] },
      });
      const manager = await app.tokenOf('crew-manager');
      const made = await app.request('POST', `${members}crew-b/make_admin/`, { token: manager });
      expect(made.status).toBe(200);
      expect(made.body.is_admin).toBe(true);
      const removed = await app.request('POST', `${members}crew-b/remove_admin/`, { token: manager });
      expect(removed.status).toBe(200);
      expect(removed.body.is_admin).toBe(false);
    });

    it('refuses make_admin to a plain member with 403', async () => {
      const answer = await app.request('POST', `${members}crew-c/make_admin/`, { token: await app.tokenOf('crew-c') });
      expect(answer.status).toBe(403);
    });

    it('refuses to remove the last admin with 422 BUSINESS_LOGIC_ERROR', async () => {
      // Prepare: crew-a (made admin above) steps down, leaving the owner the only admin.
      expect((await app.request('POST', `${members}crew-a/remove_admin/`, { token: owner })).status).toBe(200);
      // Act
      const answer = await app.request('POST', `${members}crew-owner/remove_admin/`, { token: owner });
      // Assess
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ status: 'error', code: 'BUSINESS_LOGIC_ERROR' });
      const viaPut = await app.request('PUT', `${members}crew-owner/`, { token: owner, body: { is_admin: false } });
      expect(viaPut.status).toBe(422);
      const [row] = await app.runtime.db.rows<{ is_admin: boolean }>(sql`
        select m.is_admin from platform.organization_members m join platform.users u on u.id = m.user_id where u.username = 'crew-owner'`);
      expect(row!.is_admin).toBe(true);
    });
  });

  describe('delete', () => {
    it('removes a member with their permissions on the organization sites', async () => {
      const answer = await app.request('DELETE', `${members}crew-b/`, { token: owner });
      expect(answer.status).toBe(204);
      const rows = await app.runtime.db.rows(sql`
        select 1 from platform.organization_members m join platform.users u on u.id = m.user_id where u.username = 'crew-b'
        union all
        select 1 from platform.site_user_permissions s join platform.users u on u.id = s.user_id where u.username = 'crew-b'`);
      expect(rows).toEqual([]);
      expect((await app.request('GET', `${members}crew-b/`, { token: owner })).status).toBe(404);
    });

    it('refuses to remove the last admin with 422', async () => {
      const answer = await app.request('DELETE', `${members}crew-owner/`, { token: owner });
      expect(answer.status).toBe(422);
    });

    it('answers 404 to a non-member trying to remove a member', async () => {
      const answer = await app.request('DELETE', `${members}crew-c/`, { token: await app.tokenOf('other-owner') });
      expect(answer.status).toBe(404);
    });
  });
});
