import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('organizations API', () => {
  let app: TestApp;
  let admin: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
  });
  afterAll(async () => {
    await app.close();
  });

  const slugs = (body: { data: Array<{ slug: string }> }) => body.data.map((org) => org.slug);
  const create = async (token: string, body: Record<string, unknown>) => {
    const answer = await app.request('POST', '/api/cloud/organizations/', { token, body });
    expect(answer.status).toBe(201);
    return answer.body.data as { uuid: string; slug: string; name: string };
  };

  describe('create', () => {
    it('creates an organization with a slug from its name and makes the creator owner and admin', async () => {
      // Prepare
      const founder = await app.createUser('founder');
      // Act
      const answer = await app.request('POST', '/api/cloud/organizations/', {
        token: await app.tokenOf('founder'),
        body: { name: 'Acme Widgets' },
      });
      // Assess
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ status: 'success', data: { name: 'Acme Widgets', slug: 'acme-widgets', is_active: true } });
      expect(answer.body.data.uuid).toMatch(/^[0-9a-f-]{36}$/);
      const [member] = await app.runtime.db.rows<{ is_admin: boolean; is_owner: boolean }>(sql`
        select m.is_admin, m.is_owner from platform.organization_members m
        join platform.organizations o on o.id = m.organization_id
        where o.slug = 'acme-widgets' and m.user_id = ${founder.id}`);
      expect(member).toEqual({ is_admin: true, is_owner: true });
    });

    it('appends -2 and -3 when the slug from the name is taken', async () => {
      const first = await create(admin, { name: 'Twin Co' });
      const second = await create(admin, { name: 'Twin Co' });
      const third = await create(admin, { name: 'twin co!' });
      expect([first.slug, second.slug, third.slug]).toEqual(['twin-co', 'twin-co-2', 'twin-co-3']);
    });

    it('takes a given slug and refuses one that is taken with a field error', async () => {
      const chosen = await create(admin, { name: 'Chosen', slug: 'my-chosen' });
      expect(chosen.slug).toBe('my-chosen');
      const again = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Other', slug: 'my-chosen' } });
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', errors: { slug: [expect.any(String)] } });
    });

    it('answers 400 naming the field for a missing name or a malformed slug', async () => {
      const missing = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual({ name: ['This field is required.'] });
      const badSlug = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'X', slug: 'Not A Slug' } });
      expect(badSlug.status).toBe(400);
      expect(Object.keys(badSlug.body.errors)).toEqual(['slug']);
    });

    it('answers 401 without a token', async () => {
      const answer = await app.request('POST', '/api/cloud/organizations/', { body: { name: 'Anon' } });
      expect(answer.status).toBe(401);
    });
  });

  describe('list', () => {
    beforeAll(async () => {
      await app.createUser('lister');
      await app.createUser('lister-other');
      const lister = await app.tokenOf('lister');
      await create(lister, { name: 'Lister Alpha' });
      await create(lister, { name: 'Lister Beta' });
      const dormant = await create(lister, { name: 'Lister Dormant' });
      await app.request('PUT', `/api/cloud/organizations/${dormant.slug}/`, { token: lister, body: { is_active: false } });
      await create(await app.tokenOf('lister-other'), { name: 'Lister Hidden' });
    });

    it('shows a user only the organizations they belong to, in Envelope A with total and pagination', async () => {
      const answer = await app.request('GET', '/api/cloud/organizations/', { token: await app.tokenOf('lister') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        status: 'success',
        total: 2,
        pagination: { page: 1, page_size: 20, has_next: false, has_previous: false },
      });
      expect(slugs(answer.body)).toEqual(['lister-alpha', 'lister-beta']);
    });

    it('shows superusers every organization', async () => {
      const answer = await app.request('GET', '/api/organizations/?search=lister&is_active=all', { token: admin });
      expect(slugs(answer.body)).toEqual(['lister-alpha', 'lister-beta', 'lister-dormant', 'lister-hidden']);
    });

    it('filters on is_active with true/1 by default, false/0 and all/*', async () => {
      const token = await app.tokenOf('lister');
      const get = async (query: string) => slugs((await app.request('GET', `/api/cloud/organizations/${query}`, { token })).body);
      expect(await get('?is_active=1')).toEqual(['lister-alpha', 'lister-beta']);
      expect(await get('?is_active=false')).toEqual(['lister-dormant']);
      expect(await get('?is_active=0')).toEqual(['lister-dormant']);
      expect(await get('?is_active=all')).toEqual(['lister-alpha', 'lister-beta', 'lister-dormant']);
      expect(await get('?is_active=*')).toEqual(['lister-alpha', 'lister-beta', 'lister-dormant']);
    });

    it('searches name and slug, orders and pages', async () => {
      const token = await app.tokenOf('lister');
      const searched = await app.request('GET', '/api/cloud/organizations/?search=BETA', { token });
      expect(slugs(searched.body)).toEqual(['lister-beta']);
      const ordered = await app.request('GET', '/api/cloud/organizations/?ordering=-name&page_size=1&page=2', { token });
      expect(ordered.body).toMatchObject({ total: 2, pagination: { page: 2, page_size: 1, has_next: false, has_previous: true } });
      expect(slugs(ordered.body)).toEqual(['lister-alpha']);
    });

    it('answers 400 for an unknown ordering field, a bad is_active or a non-number page', async () => {
      for (const query of ['?ordering=password', '?is_active=maybe', '?page=x']) {
        const answer = await app.request('GET', `/api/cloud/organizations/${query}`, { token: admin });
        expect(answer.status).toBe(400);
        expect(answer.body.code).toBe('VALIDATION_ERROR');
      }
    });
  });

  describe('detail, change and privileges', () => {
    let org: { uuid: string; slug: string };
    beforeAll(async () => {
      await app.createUser('detail-owner');
      await app.createUser('detail-member');
      await app.createUser('detail-outsider');
      org = await create(await app.tokenOf('detail-owner'), { name: 'Detail Org' });
      await app.request('POST', `/api/cloud/organizations/${org.slug}/members/`, {
        token: await app.adminToken(),
        body: { user_slug: 'detail-member' },
      });
    });

    it('answers the organization by slug and by UUID to its members', async () => {
      const token = await app.tokenOf('detail-member');
      const bySlug = await app.request('GET', `/api/cloud/organizations/${org.slug}/`, { token });
      const byUuid = await app.request('GET', `/api/organizations/${org.uuid}/`, { token });
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toMatchObject({ status: 'success', data: { uuid: org.uuid, slug: 'detail-org', name: 'Detail Org' } });
      expect(byUuid.body.data).toEqual(bySlug.body.data);
    });

    it('answers 404 to a non-member, by slug and by UUID', async () => {
      const token = await app.tokenOf('detail-outsider');
      for (const key of [org.slug, org.uuid]) {
        const answer = await app.request('GET', `/api/cloud/organizations/${key}/`, { token });
        expect(answer.status).toBe(404);
        expect(answer.body.code).toBe('NOT_FOUND');
      }
    });

    it('lets the owner change name and is_active and refuses a plain member with 403', async () => {
      const refused = await app.request('PUT', `/api/cloud/organizations/${org.slug}/`, {
        token: await app.tokenOf('detail-member'),
        body: { name: 'Hijacked' },
      });
      expect(refused.status).toBe(403);
      const changed = await app.request('PUT', `/api/cloud/organizations/${org.slug}/`, {
        token: await app.tokenOf('detail-owner'),
        body: { name: 'Detail Org Renamed', is_active: false },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ name: 'Detail Org Renamed', slug: 'detail-org', is_active: false });
      const [row] = await app.runtime.db.rows<{ name: string; is_active: boolean }>(
        sql`select name, is_active from platform.organizations where slug = 'detail-org'`,
      );
      expect(row).toEqual({ name: 'Detail Org Renamed', is_active: false });
    });

    it('answers 400 for a wrongly typed change', async () => {
      const answer = await app.request('PUT', `/api/cloud/organizations/${org.slug}/`, {
        token: await app.tokenOf('detail-owner'),
        body: { is_active: 'yes' },
      });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.errors)).toEqual(['is_active']);
    });

    it('gives owners every organization permission', async () => {
      const answer = await app.request('GET', `/api/cloud/organizations/${org.slug}/privileges/`, {
        token: await app.tokenOf('detail-owner'),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.permissions).toEqual(
        expect.arrayContaining([
          'change_organization',
          'delete_organization',
          'invite_members',
          'manage_organization',
          'manage_sites',
          'view_organization',
        ]),
      );
    });

    it('includes permissions a member inherits through a group', async () => {
      const token = await app.tokenOf('detail-member');
      const before = await app.request('GET', `/api/cloud/organizations/${org.slug}/privileges/`, { token });
      expect(before.body.permissions).not.toContain('invite_members');
      await app.runtime.db.run(sql`
        with g as (insert into platform.groups (name) values ('inviters') returning id)
        insert into platform.group_permissions (group_id, permission_id)
        select g.id, p.id from g, platform.permissions p where p.codename = 'invite_members'`);
      await app.runtime.db.run(sql`
        insert into platform.user_groups (user_id, group_id)
        select u.id, g.id from platform.users u, platform.groups g where u.username = 'detail-member' and g.name = 'inviters'`);
      const after = await app.request('GET', `/api/cloud/organizations/${org.slug}/privileges/`, {
        token: await app.tokenOf('detail-member'),
      });
      expect(after.body).toEqual({ permissions: expect.arrayContaining(['invite_members']) });
    });

    it('answers 404 for the privileges of an organization the caller is not in', async () => {
      const answer = await app.request('GET', `/api/cloud/organizations/${org.uuid}/privileges/`, {
        token: await app.tokenOf('detail-outsider'),
      });
      expect(answer.status).toBe(404);
    });

    it('refuses delete to a non-owner admin with 403 and to an outsider with 404', async () => {
      await app.request('POST', `/api/cloud/organizations/${org.slug}/members/detail-member/make_admin/`, {
        token: await app.tokenOf('detail-owner'),
      });
      const asAdmin = await app.request('DELETE', `/api/cloud/organizations/${org.slug}/`, { token: await app.tokenOf('detail-member') });
      expect(asAdmin.status).toBe(403);
      const asOutsider = await app.request('DELETE', `/api/cloud/organizations/${org.slug}/`, {
        token: await app.tokenOf('detail-outsider'),
      });
      expect(asOutsider.status).toBe(404);
      const [still] = await app.runtime.db.rows(sql`select 1 from platform.organizations where slug = 'detail-org'`);
      expect(still).toBeDefined();
    });
  });
});
