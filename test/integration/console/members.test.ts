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

  /**
   * An organization of a test's own, so what the test changes (members added, made admin, removed)
   * never reaches the shared "crew" organization the read-only tests count and look at.
   */
  async function organizationOf(tag: string, memberNames: string[] = []) {
    await app.createUser(`${tag}-owner`);
    const ownerToken = await app.tokenOf(`${tag}-owner`);
    const created = await app.request('POST', '/api/cloud/organizations/', { token: ownerToken, body: { name: tag } });
    if (created.status !== 201) throw new Error(`creating organization ${tag} failed: ${JSON.stringify(created.body)}`);
    const slug = created.body.data.slug as string;
    const path = `/api/cloud/organizations/${slug}/members/`;
    for (const name of memberNames) {
      await app.createUser(name);
      const added = await app.request('POST', path, { token: await app.adminToken(), body: { user_slug: name } });
      if (added.status !== 201) throw new Error(`adding ${name} to ${slug} failed: ${added.status} ${JSON.stringify(added.body)}`);
    }
    return { slug, path, ownerToken };
  }

  beforeAll(async () => {
    app = await startTestApp();
    for (const name of ['crew-owner', 'crew-a', 'crew-b', 'crew-c', 'outsider', 'other-owner']) {
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
    // The shared crew: crew-a (editors, manage_site and view_site), crew-b and crew-c plain members.
    // Tests may read it and be refused by it; a test that changes members uses an organization of its own.
    const admin = await app.adminToken();
    await app.request('POST', members, {
      token: admin,
      body: {
        user_slug: 'crew-a',
        group_ids: [groupIds.editors],
        sites: [{ slug: 'crew-site', permissions: ['manage_site', 'view_site'] }],
      },
    });
    await app.request('POST', members, { token: admin, body: { user_slug: 'crew-b', sites: [{ slug: 'crew-site' }] } });
    await app.request('POST', members, { token: admin, body: { user_slug: 'crew-c' } });
  });
  afterAll(async () => {
    await app.close();
  });

  describe('add', () => {
    it('adds a user by user_slug with global groups and site permissions, view_site by default', async () => {
      // Prepare: an organization of its own, with a site and three users not yet members
      const adders = await organizationOf('adders');
      const addersSite = await addSite(adders.slug, 'adders-site');
      for (const name of ['adds-a', 'adds-b', 'adds-c']) await app.createUser(name);
      // Act: the superuser holds authority over every account
      const answer = await app.request('POST', adders.path, {
        token: await app.adminToken(),
        body: {
          user_slug: 'adds-a',
          group_ids: [groupIds.editors],
          sites: [{ slug: 'adders-site', permissions: ['manage_site', 'view_site'] }],
        },
      });
      // Assess
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        username: 'adds-a',
        email: 'adds-a@example.com',
        is_admin: false,
        is_owner: false,
        is_active: true,
        groups: [{ id: groupIds.editors, name: 'editors' }],
        sites: [
          { uuid: addersSite.uuid, name: 'Site adders-site', schema_name: 't_adders_site', permissions: ['manage_site', 'view_site'] },
        ],
      });
      const grants = await app.runtime.db.rows<{ codename: string }>(sql`
        select p.codename from platform.site_user_permissions sup
        join platform.permissions p on p.id = sup.permission_id
        join platform.users u on u.id = sup.user_id where u.username = 'adds-a' order by 1`);
      expect(grants.map((row) => row.codename)).toEqual(['manage_site', 'view_site']);

      const byUserId = await app.request('POST', adders.path, {
        token: await app.adminToken(),
        body: { user_id: 'adds-b', sites: [{ slug: 'adders-site' }] },
      });
      expect(byUserId.status).toBe(201);
      expect(byUserId.body.sites[0].permissions).toEqual(['view_site']);
      expect((await app.request('POST', adders.path, { token: await app.adminToken(), body: { user_id: 'adds-c' } })).status).toBe(201);
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
      // Prepare: an organization of its own (owner and three members), one member made inactive
      const dormant = await organizationOf('dormant', ['dormant-a', 'dormant-b', 'dormant-c']);
      await app.request('PATCH', '/api/cloud/users/dormant-c/', { token: await app.adminToken(), body: { is_active: false } });
      const byDefault = await app.request('GET', dormant.path, { token: dormant.ownerToken });
      expect(usernames(byDefault.body)).not.toContain('dormant-c');
      const inactive = await app.request('GET', `${dormant.path}?user__is_active=false`, { token: dormant.ownerToken });
      expect(usernames(inactive.body)).toEqual(['dormant-c']);
      const all = await app.request('GET', `${dormant.path}?user__is_active=all&user__is_deleted=all`, { token: dormant.ownerToken });
      expect(all.body.count).toBe(4);
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
      // Prepare: a member of an organization of its own, in editors with view_site on its site
      const movers = await organizationOf('movers');
      const moversSite = await addSite(movers.slug, 'movers-site');
      await app.createUser('movers-a');
      await app.request('POST', movers.path, {
        token: await app.adminToken(),
        body: { user_slug: 'movers-a', group_ids: [groupIds.editors], sites: [{ slug: 'movers-site' }] },
      });
      // Act
      const answer = await app.request('PUT', `${movers.path}movers-a/`, {
        token: movers.ownerToken,
        body: { is_admin: true, groups: [groupIds.readers], site: [{ uuid: moversSite.uuid, permissions: ['access_site'] }] },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        is_admin: true,
        groups: [{ id: groupIds.readers, name: 'readers' }],
        sites: [{ uuid: moversSite.uuid, permissions: ['access_site'] }],
      });
      const cleared = await app.request('PUT', `${movers.path}movers-a/`, { token: movers.ownerToken, body: { site: [] } });
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
      // Prepare: an organization of its own with a plain member and a manage_organization holder
      const managed = await organizationOf('managed', ['managed-b']);
      await app.createUser('managed-manager');
      await app.request('POST', managed.path, {
        token: await app.adminToken(),
        body: { user_slug: 'managed-manager', permissions: ['manage_organization'] },
      });
      const manager = await app.tokenOf('managed-manager');
      const made = await app.request('POST', `${managed.path}managed-b/make_admin/`, { token: manager });
      expect(made.status).toBe(200);
      expect(made.body.is_admin).toBe(true);
      const removed = await app.request('POST', `${managed.path}managed-b/remove_admin/`, { token: manager });
      expect(removed.status).toBe(200);
      expect(removed.body.is_admin).toBe(false);
    });

    it('refuses make_admin to a plain member with 403', async () => {
      const answer = await app.request('POST', `${members}crew-c/make_admin/`, { token: await app.tokenOf('crew-c') });
      expect(answer.status).toBe(403);
    });

    it('refuses to remove the last admin with 422 BUSINESS_LOGIC_ERROR', async () => {
      // Prepare: in an organization of its own, a member made admin steps down, leaving the owner the only admin.
      const lone = await organizationOf('lone', ['lone-a']);
      expect((await app.request('POST', `${lone.path}lone-a/make_admin/`, { token: lone.ownerToken })).status).toBe(200);
      expect((await app.request('POST', `${lone.path}lone-a/remove_admin/`, { token: lone.ownerToken })).status).toBe(200);
      // Act
      const answer = await app.request('POST', `${lone.path}lone-owner/remove_admin/`, { token: lone.ownerToken });
      // Assess
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ status: 'error', code: 'BUSINESS_LOGIC_ERROR' });
      const viaPut = await app.request('PUT', `${lone.path}lone-owner/`, { token: lone.ownerToken, body: { is_admin: false } });
      expect(viaPut.status).toBe(422);
      const [row] = await app.runtime.db.rows<{ is_admin: boolean }>(sql`
        select m.is_admin from platform.organization_members m join platform.users u on u.id = m.user_id where u.username = 'lone-owner'`);
      expect(row!.is_admin).toBe(true);
    });
  });

  describe('delete', () => {
    it('removes a member with their permissions on the organization sites', async () => {
      // Prepare: an organization of its own whose member holds view_site on its site
      const leavers = await organizationOf('leavers');
      await addSite(leavers.slug, 'leavers-site');
      await app.createUser('leavers-b');
      await app.request('POST', leavers.path, {
        token: await app.adminToken(),
        body: { user_slug: 'leavers-b', sites: [{ slug: 'leavers-site' }] },
      });
      // Act
      const answer = await app.request('DELETE', `${leavers.path}leavers-b/`, { token: leavers.ownerToken });
      // Assess
      expect(answer.status).toBe(204);
      const rows = await app.runtime.db.rows(sql`
        select 1 from platform.organization_members m join platform.users u on u.id = m.user_id where u.username = 'leavers-b'
        union all
        select 1 from platform.site_user_permissions s join platform.users u on u.id = s.user_id where u.username = 'leavers-b'`);
      expect(rows).toEqual([]);
      expect((await app.request('GET', `${leavers.path}leavers-b/`, { token: leavers.ownerToken })).status).toBe(404);
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
