// Sites through the API on a fresh database (PGlite, or PostgreSQL with DATABASE_URL): creation with
// its schema and primary domain in one transaction, visibility, update, delete and the failures
// that must leave nothing behind.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { tenantMigrations } from '#shared/db/tenant-migrations.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`sites API on ${testDriver}`, () => {
  let app: TestApp;
  let admin: string;
  const tokens: Record<string, string> = {};

  const db = () => app.runtime.db;
  const schemaTables = async (schema: string) =>
    (
      await db().rows<{ table_name: string }>(
        sql`select table_name::text as table_name from information_schema.tables where table_schema = ${schema} order by table_name`,
      )
    ).map((row) => row.table_name);
  const schemaExists = async (schema: string) =>
    (await db().rows(sql`select 1 from information_schema.schemata where schema_name = ${schema}`)).length === 1;
  const grantSite = async (username: string, siteSlug: string, ...codenames: string[]) =>
    db().run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
      where s.slug = ${siteSlug} and u.username = ${username} and p.codename in ${codenames}`);
  const createSite = (org: string, token: string, body: Record<string, unknown>) =>
    app.request('POST', `/api/cloud/organizations/${org}/sites/`, { token, body });

  // Every test that changes a site or a user's grants makes its own (sites named for the test, members
  // made by acmeMember), so the tests pass in any order (--sequence.shuffle); the visibility sites are
  // made once for that block and only read.
  /** A new plain member of Acme, signed in (its token in `tokens`). */
  async function acmeMember(name: string): Promise<string> {
    await app.createUser(name);
    await db().run(sql`
      insert into platform.organization_members (organization_id, user_id)
      select o.id, u.id from platform.organizations o, platform.users u where o.slug = 'acme' and u.username = ${name}`);
    tokens[name] = (await app.login(name, USER_PASSWORD)).access;
    return name;
  }
  /** A new site of Acme made by its owner; answers its slug. */
  async function acmeSite(name: string): Promise<string> {
    const created = await createSite('acme', tokens['st-owner']!, { name });
    expect(created.status).toBe(201);
    return created.body.slug as string;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    for (const name of ['st-owner', 'st-member', 'st-outsider', 'st-sitemgr', 'st-editor']) {
      await app.createUser(name);
    }
    await db().run(sql`insert into platform.organizations (name, slug) values ('Acme', 'acme'), ('Other', 'other')`);
    await db().run(sql`
      insert into platform.organization_members (organization_id, user_id, is_admin, is_owner, permissions)
      select o.id, u.id, u.username = 'st-owner', u.username = 'st-owner',
        case when u.username = 'st-sitemgr' then array['manage_sites'] else '{}'::text[] end
      from platform.organizations o, platform.users u
      where o.slug = 'acme' and u.username in ('st-owner', 'st-member', 'st-sitemgr', 'st-editor')`);
    await db().run(sql`
      insert into platform.organization_members (organization_id, user_id, is_admin)
      select o.id, u.id, true from platform.organizations o, platform.users u where o.slug = 'other' and u.username = 'st-outsider'`);
    for (const name of ['st-owner', 'st-member', 'st-outsider', 'st-sitemgr', 'st-editor']) {
      tokens[name] = (await app.login(name, USER_PASSWORD)).access;
    }
  });
  afterAll(async () => {
    await app.close();
  });

  describe('creation', () => {
    it('creates the site, its schema from the template and its primary domain', async () => {
      const answer = await createSite('acme', tokens['st-owner']!, { name: 'Web Shop', description: 'Our shop', environment: 'staging' });

      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        slug: 'web-shop',
        name: 'Web Shop',
        description: 'Our shop',
        schema_name: 'site_web_shop',
        environment: 'staging',
        is_active: true,
        organization: { slug: 'acme', name: 'Acme' },
      });
      expect(answer.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(await schemaTables('site_web_shop')).toEqual(expect.arrayContaining(['_migrations', 'apps']));
      const versions = await db().rows<{ version: number }>(sql`select version from site_web_shop._migrations order by version`);
      expect(versions.map((row) => Number(row.version))).toEqual(
        tenantMigrations.map((migration) => migration.version).sort((a, b) => a - b),
      );
      const domains = await db().rows<{ domain: string; is_primary: boolean; is_active: boolean }>(sql`
        select d.domain, d.is_primary, d.is_active from platform.domains d join platform.sites s on s.id = d.site_id
        where s.slug = 'web-shop'`);
      expect(domains).toEqual([{ domain: 'web-shop.localhost', is_primary: true, is_active: true }]);
    });

    it('defaults the environment to production and suffixes a taken slug', async () => {
      const first = await createSite('acme', tokens['st-owner']!, { name: 'Blog' });
      const second = await createSite('acme', tokens['st-owner']!, { name: 'Blog' });

      expect(first.body).toMatchObject({ slug: 'blog', environment: 'production', description: '' });
      expect(second.body).toMatchObject({ slug: 'blog-2', schema_name: 'site_blog_2' });
    });

    it('gives a site named Config the slug config-2 (config is reserved)', async () => {
      const answer = await createSite('acme', tokens['st-owner']!, { name: 'Config' });

      expect(answer.status).toBe(201);
      expect(answer.body.slug).toBe('config-2');
    });

    it('refuses bad input with field errors', async () => {
      const badEnvironment = await createSite('acme', tokens['st-owner']!, { name: 'X', environment: 'prod' });
      const noName = await createSite('acme', tokens['st-owner']!, { description: 'nameless' });

      expect(badEnvironment.status).toBe(400);
      expect(badEnvironment.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
      expect(badEnvironment.body.errors.environment[0]).toMatch(/production/);
      expect(noName.status).toBe(400);
      expect(noName.body.errors.name).toEqual(['This field is required.']);
    });

    it('lets manage_sites holders create, refuses plain members (403) and hides the organization from outsiders (404)', async () => {
      const byHolder = await createSite('acme', tokens['st-sitemgr']!, { name: 'Holder Site' });
      const byMember = await createSite('acme', tokens['st-member']!, { name: 'Member Site' });
      const byOutsider = await createSite('acme', tokens['st-outsider']!, { name: 'Planted' });

      expect(byHolder.status).toBe(201);
      expect(byMember.status).toBe(403);
      expect(byOutsider.status).toBe(404);
      const planted = await db().rows(sql`select 1 from platform.sites where name in ('Member Site', 'Planted')`);
      expect(planted).toEqual([]);
    });
  });

  describe('failed creation leaves nothing', () => {
    it('skips a slug whose schema name is taken by a schema no site owns', async () => {
      await db().run(sql`create schema site_orphan`);

      const answer = await createSite('acme', tokens['st-owner']!, { name: 'Orphan' });

      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ slug: 'orphan-2', schema_name: 'site_orphan_2' });
      expect(await schemaTables('site_orphan')).toEqual([]);
    });

    it('skips a slug whose host another site already holds', async () => {
      const squatter = await acmeSite('Squatter');
      await db().run(sql`
        insert into platform.domains (site_id, slug, domain)
        select id, 'squatted', 'held.localhost' from platform.sites where slug = ${squatter}`);

      const answer = await createSite('acme', tokens['st-owner']!, { name: 'Held' });

      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ slug: 'held-2' });
      const domains = await db().rows<{ slug: string }>(sql`select slug from platform.domains where domain = 'held.localhost'`);
      expect(domains).toEqual([{ slug: 'squatted' }]);
    });

    it('rolls back the site row and the schema when the primary domain cannot be registered', async () => {
      // The host is free when checked, and its row is refused as a unique violation at insert (as a
      // site created at the same moment would make it).
      await db().run(
        sql.raw(`create function platform_test_refuse_domain() returns trigger language plpgsql as $$
        begin
          if new.domain = 'doomed.localhost' then
            raise exception 'domain refused by test' using errcode = 'unique_violation';
          end if;
          return new;
        end $$`),
      );
      await db().run(
        sql.raw(`create trigger platform_test_refuse_domain before insert on platform.domains
          for each row execute function platform_test_refuse_domain()`),
      );
      try {
        const answer = await createSite('acme', tokens['st-owner']!, { name: 'Doomed' });

        expect(answer.status).toBe(409);
        expect(answer.body).toMatchObject({ status: 'error', code: 'CONFLICT' });
        expect(await db().rows(sql`select 1 from platform.sites where name = 'Doomed'`)).toEqual([]);
        expect(await schemaExists('site_doomed')).toBe(false);
      } finally {
        await db().run(sql.raw('drop trigger platform_test_refuse_domain on platform.domains'));
        await db().run(sql.raw('drop function platform_test_refuse_domain()'));
      }
    });

    it('rolls back the site row when creating the schema itself fails', async () => {
      // An event trigger makes CREATE SCHEMA of this one name fail, after the site row was inserted.
      await db().run(
        sql.raw(`
        create function platform_test_refuse_schema() returns event_trigger language plpgsql as $$
        begin
          if exists (select 1 from pg_event_trigger_ddl_commands() where object_identity = 'site_broken') then
            raise exception 'schema refused by test';
          end if;
        end $$`),
      );
      await db().run(
        sql.raw(
          `create event trigger platform_test_refuse on ddl_command_end when tag in ('CREATE SCHEMA') execute function platform_test_refuse_schema()`,
        ),
      );
      try {
        const answer = await createSite('acme', tokens['st-owner']!, { name: 'Broken' });

        expect(answer.status).toBe(500);
        expect(answer.body).toMatchObject({ status: 'error', code: 'INTERNAL_ERROR' });
        expect(JSON.stringify(answer.body)).not.toContain('refused by test');
      } finally {
        await db().run(sql.raw('drop event trigger platform_test_refuse'));
        await db().run(sql.raw('drop function platform_test_refuse_schema()'));
      }
      expect(await db().rows(sql`select 1 from platform.sites where name = 'Broken'`)).toEqual([]);
      expect(await db().rows(sql`select 1 from platform.domains where domain = 'broken.localhost'`)).toEqual([]);
      expect(await schemaExists('site_broken')).toBe(false);
      const retried = await createSite('acme', tokens['st-owner']!, { name: 'Broken' });
      expect(retried.body.slug).toBe('broken');
    });
  });

  describe('visibility', () => {
    // Sites of this block only, which no test changes: bazaar (no grants), gazette (st-member may view it).
    beforeAll(async () => {
      await createSite('other', tokens['st-outsider']!, { name: 'Elsewhere' });
      await acmeSite('Bazaar');
      await acmeSite('Gazette');
      await grantSite('st-member', 'gazette', 'view_site');
    });
    const slugs = (body: { results: Array<{ slug: string }> }) => body.results.map((site) => site.slug).sort();

    it('lists every site to superusers, all organization sites to its managers, granted sites to members', async () => {
      const asAdmin = await app.request('GET', '/api/cloud/sites/?page_size=100', { token: admin });
      const asOwner = await app.request('GET', '/api/cloud/sites/?page_size=100', { token: tokens['st-owner'] });
      const asMember = await app.request('GET', '/api/sites/', { token: tokens['st-member'] });
      const asEditor = await app.request('GET', '/api/cloud/sites/', { token: tokens['st-editor'] });

      expect(slugs(asAdmin.body)).toContain('elsewhere');
      expect(slugs(asOwner.body)).toContain('bazaar');
      expect(slugs(asOwner.body)).not.toContain('elsewhere');
      expect(asMember.body).toMatchObject({ count: 1, next: null, previous: null });
      expect(slugs(asMember.body)).toEqual(['gazette']);
      expect(asEditor.body).toMatchObject({ count: 0, results: [] });
    });

    it("counts manage_sites given through the membership's groups, in that organization only", async () => {
      await app.createUser('st-grouped');
      await db().run(sql`
        with g as (insert into platform.groups (name) values ('site-managers') returning id)
        insert into platform.group_permissions (group_id, permission_id)
        select g.id, p.id from g, platform.permissions p where p.codename = 'manage_sites'`);
      await db().run(sql`
        insert into platform.organization_members (organization_id, user_id)
        select o.id, u.id from platform.organizations o, platform.users u where o.slug = 'acme' and u.username = 'st-grouped'`);
      const grouped = (await app.login('st-grouped', USER_PASSWORD)).access;
      const before = await app.request('GET', '/api/cloud/sites/', { token: grouped });
      await db().run(sql`
        insert into platform.organization_member_groups (member_id, group_id)
        select m.id, g.id from platform.organization_members m
        join platform.users u on u.id = m.user_id, platform.groups g
        where u.username = 'st-grouped' and g.name = 'site-managers'`);

      const after = await app.request('GET', '/api/cloud/sites/?page_size=100', { token: grouped });
      const detail = await app.request('GET', '/api/cloud/sites/bazaar/privileges/', { token: grouped });
      const elsewhere = await app.request('GET', '/api/cloud/sites/elsewhere/', { token: grouped });

      expect(before.body.count).toBe(0);
      expect(slugs(after.body)).toContain('bazaar');
      expect(slugs(after.body)).not.toContain('elsewhere');
      expect(detail.body.permissions).toContain('manage_site');
      expect(elsewhere.status).toBe(404);
    });

    it("lists an organization's sites by what the caller may see, and hides the organization from outsiders", async () => {
      const asMember = await app.request('GET', '/api/cloud/organizations/acme/sites/', { token: tokens['st-member'] });
      const asOutsider = await app.request('GET', '/api/cloud/organizations/acme/sites/', { token: tokens['st-outsider'] });
      const searched = await app.request('GET', '/api/cloud/organizations/acme/sites/?search=BAZA', { token: tokens['st-owner'] });

      expect(slugs(asMember.body)).toEqual(['gazette']);
      expect(asOutsider.status).toBe(404);
      expect(slugs(searched.body)).toEqual(['bazaar']);
    });

    it('answers the detail by slug or UUID to those with access and 404 to anyone else', async () => {
      const [row] = await db().rows<{ uuid: string }>(sql`select uuid::text as uuid from platform.sites where slug = 'bazaar'`);
      const bySlug = await app.request('GET', '/api/cloud/sites/bazaar/', { token: tokens['st-owner'] });
      const byUuid = await app.request('GET', `/api/sites/${row!.uuid}/`, { token: tokens['st-owner'] });
      const outsiderBySlug = await app.request('GET', '/api/cloud/sites/bazaar/', { token: tokens['st-outsider'] });
      const outsiderByUuid = await app.request('GET', `/api/cloud/sites/${row!.uuid}/`, { token: tokens['st-outsider'] });
      const memberWithout = await app.request('GET', '/api/cloud/sites/bazaar/', { token: tokens['st-member'] });

      expect(bySlug.status).toBe(200);
      expect(byUuid.body).toEqual(bySlug.body);
      for (const answer of [outsiderBySlug, outsiderByUuid, memberWithout]) {
        expect(answer.status).toBe(404);
        expect(JSON.stringify(answer.body)).not.toContain('site_bazaar');
      }
    });

    it("answers the caller's effective permissions", async () => {
      const owner = await app.request('GET', '/api/cloud/sites/gazette/privileges/', { token: tokens['st-owner'] });
      const member = await app.request('GET', '/api/cloud/sites/gazette/privileges/', { token: tokens['st-member'] });
      const outsider = await app.request('GET', '/api/cloud/sites/gazette/privileges/', { token: tokens['st-outsider'] });

      expect(owner.body).toEqual({ permissions: ['access_site', 'admin_site', 'manage_site', 'manage_site_users', 'view_site'] });
      expect(member.body).toEqual({ permissions: ['view_site'] });
      expect(outsider.status).toBe(404);
    });
  });

  describe('update', () => {
    it('changes name, description, environment and is_active but never the slug', async () => {
      const slug = await acmeSite('Renamable');
      const answer = await app.request('PUT', `/api/cloud/sites/${slug}/`, {
        token: tokens['st-owner'],
        body: { name: 'Journal', description: 'Renamed', environment: 'testing', is_active: false },
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        slug: 'renamable',
        name: 'Journal',
        description: 'Renamed',
        environment: 'testing',
        is_active: false,
      });
      const [row] = await db().rows(sql`select name, environment, is_active from platform.sites where slug = 'renamable'`);
      expect(row).toEqual({ name: 'Journal', environment: 'testing', is_active: false });
    });

    it('needs manage_site or admin_site: view_site is 403, manage_site is allowed', async () => {
      const slug = await acmeSite('Guarded');
      const guard = await acmeMember('st-guard');
      await grantSite(guard, slug, 'view_site');
      const viewer = await app.request('PUT', `/api/cloud/sites/${slug}/`, { token: tokens[guard], body: { name: 'Nope' } });
      await grantSite(guard, slug, 'manage_site');
      const editor = await app.request('PUT', `/api/cloud/sites/${slug}/`, { token: tokens[guard], body: { name: 'Yes' } });
      const bad = await app.request('PUT', `/api/cloud/sites/${slug}/`, { token: tokens[guard], body: { is_active: 'maybe' } });

      expect(viewer.status).toBe(403);
      expect(viewer.body.code).toBe('PERMISSION_DENIED');
      expect(editor.status).toBe(200);
      expect(editor.body.name).toBe('Yes');
      expect(bad.status).toBe(400);
    });
  });

  describe('delete', () => {
    it('is refused to site permission holders who do not manage the organization', async () => {
      const slug = await acmeSite('Keepsake');
      const keeper = await acmeMember('st-keeper');
      await grantSite(keeper, slug, 'view_site', 'manage_site');

      const answer = await app.request('DELETE', `/api/cloud/sites/${slug}/`, { token: tokens[keeper] });

      expect(answer.status).toBe(403);
      expect(await schemaExists('site_keepsake')).toBe(true);
    });

    it('drops the schema, the row, its domains and user permissions', async () => {
      const slug = await acmeSite('Dropped');
      await grantSite(await acmeMember('st-dropped-viewer'), slug, 'view_site');
      const [site] = await db().rows<{ id: number }>(sql`select id from platform.sites where slug = ${slug}`);
      expect(await db().rows(sql`select 1 from platform.site_user_permissions where site_id = ${site!.id}`)).toHaveLength(1);

      const answer = await app.request('DELETE', `/api/cloud/sites/${slug}/`, { token: tokens['st-owner'] });

      expect(answer.status).toBe(204);
      expect(await schemaExists('site_dropped')).toBe(false);
      expect(await db().rows(sql`select 1 from platform.sites where id = ${site!.id}`)).toEqual([]);
      expect(await db().rows(sql`select 1 from platform.domains where site_id = ${site!.id}`)).toEqual([]);
      expect(await db().rows(sql`select 1 from platform.site_user_permissions where site_id = ${site!.id}`)).toEqual([]);
      const again = await app.request('GET', `/api/cloud/sites/${slug}/`, { token: tokens['st-owner'] });
      expect(again.status).toBe(404);
    });
  });
});
