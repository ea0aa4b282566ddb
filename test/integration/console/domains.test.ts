// Domains of a site through the API: CRUD by slug or UUID, one primary per site with demotion in the
// same transaction, host syntax, and a host belonging to one site platform-wide.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`domains API on ${testDriver}`, () => {
  let app: TestApp;
  let owner: string;
  let viewer: string;
  let outsider: string;
  const base = '/api/cloud/sites/web/domains/';

  const primaries = async (siteSlug: string) =>
    (
      await app.runtime.db.rows<{ domain: string }>(sql`
        select d.domain from platform.domains d join platform.sites s on s.id = d.site_id
        where s.slug = ${siteSlug} and d.is_primary order by d.domain`)
    ).map((row) => row.domain);

  beforeAll(async () => {
    app = await startTestApp();
    for (const name of ['dm-owner', 'dm-viewer', 'dm-outsider']) await app.createUser(name);
    const db = app.runtime.db;
    await db.run(sql`insert into platform.organizations (name, slug) values ('Dom Org', 'dom-org'), ('Far Org', 'far-org')`);
    await db.run(sql`
      insert into platform.organization_members (organization_id, user_id, is_admin)
      select o.id, u.id, u.username <> 'dm-viewer' from platform.organizations o, platform.users u
      where (o.slug = 'dom-org' and u.username in ('dm-owner', 'dm-viewer')) or (o.slug = 'far-org' and u.username = 'dm-outsider')`);
    owner = (await app.login('dm-owner', USER_PASSWORD)).access;
    viewer = (await app.login('dm-viewer', USER_PASSWORD)).access;
    outsider = (await app.login('dm-outsider', USER_PASSWORD)).access;
    for (const [org, token, name] of [
      ['dom-org', owner, 'Web'],
      ['far-org', outsider, 'Far'],
    ] as const) {
      const created = await app.request('POST', `/api/cloud/organizations/${org}/sites/`, { token, body: { name } });
      if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    }
    await db.run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
      where s.slug = 'web' and u.username = 'dm-viewer' and p.codename = 'view_site'`);
  });
  afterAll(async () => {
    await app.close();
  });

  it("lists the site's generated primary domain (Envelope C)", async () => {
    const answer = await app.request('GET', base, { token: owner });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(answer.body.results[0]).toMatchObject({ slug: 'web-localhost', domain: 'web.localhost', is_primary: true, is_active: true });
  });

  it('adds a domain lower-cased with a slug from the host, not primary unless asked', async () => {
    const answer = await app.request('POST', base, { token: owner, body: { domain: ' Shop.Example.COM. ' } });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      slug: 'shop-example-com',
      domain: 'shop.example.com',
      is_primary: false,
      is_active: true,
      site: 'web',
    });
    expect(await primaries('web')).toEqual(['web.localhost']);
  });

  it('demotes the old primary when a new primary is added', async () => {
    const answer = await app.request('POST', base, { token: owner, body: { domain: 'www.example.com', is_primary: true } });

    expect(answer.status).toBe(201);
    expect(answer.body.is_primary).toBe(true);
    expect(await primaries('web')).toEqual(['www.example.com']);
  });

  it('finds a domain by slug or UUID and makes it primary with PATCH, demoting the other', async () => {
    const bySlug = await app.request('GET', `${base}web-localhost/`, { token: viewer });
    const byUuid = await app.request('GET', `/api/sites/web/domains/${bySlug.body.uuid}/`, { token: owner });

    const patched = await app.request('PATCH', `${base}${bySlug.body.uuid}/`, { token: owner, body: { is_primary: true } });

    expect(byUuid.body).toEqual(bySlug.body);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ domain: 'web.localhost', is_primary: true });
    expect(await primaries('web')).toEqual(['web.localhost']);
  });

  it('replaces a domain host with PUT and keeps its slug', async () => {
    const answer = await app.request('PUT', `${base}shop-example-com/`, { token: owner, body: { domain: 'store.example.com' } });
    const missingDomain = await app.request('PUT', `${base}shop-example-com/`, { token: owner, body: { is_primary: false } });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ slug: 'shop-example-com', domain: 'store.example.com' });
    expect(missingDomain.status).toBe(400);
    expect(missingDomain.body.errors.domain).toEqual(['This field is required.']);
  });

  it('refuses a domain another site holds, with a field error', async () => {
    const answer = await app.request('POST', '/api/cloud/sites/far/domains/', { token: outsider, body: { domain: 'WWW.example.com' } });
    const ownHost = await app.request('POST', '/api/cloud/sites/far/domains/', { token: outsider, body: { domain: 'far.localhost' } });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: { domain: ['This domain is already registered.'] } });
    expect(ownHost.status).toBe(400);
    const rows = await app.runtime.db.rows(sql`select 1 from platform.domains where domain = 'www.example.com'`);
    expect(rows).toHaveLength(1);
  });

  it.each([
    ['a space', 'not a host'],
    ['a label starting with a hyphen', '-bad.example.com'],
    ['a single label', 'intranet'],
    ['an empty label', 'a..example.com'],
    ['a label over 63 characters', `${'x'.repeat(64)}.example.com`],
    ['an IP address', '10.0.0.1'],
    ['an underscore', 'my_site.example.com'],
    ["another site's platform host", 'other.localhost'],
    ['the platform domain itself', 'localhost'],
  ])('refuses %s with 400', async (_, domain) => {
    const answer = await app.request('POST', base, { token: owner, body: { domain } });

    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.errors.domain).toHaveLength(1);
  });

  it('keeps one primary: it cannot be unset, deactivated or deleted', async () => {
    const unset = await app.request('PATCH', `${base}web-localhost/`, { token: owner, body: { is_primary: false } });
    const deactivate = await app.request('PATCH', `${base}web-localhost/`, { token: owner, body: { is_active: false } });
    const removed = await app.request('DELETE', `${base}web-localhost/`, { token: owner });

    expect(unset.status).toBe(400);
    expect(unset.body.errors.is_primary).toHaveLength(1);
    expect(deactivate.status).toBe(400);
    expect(removed.status).toBe(422);
    expect(removed.body.code).toBe('BUSINESS_LOGIC_ERROR');
    expect(await primaries('web')).toEqual(['web.localhost']);
  });

  it('deletes a domain that is not the primary', async () => {
    const answer = await app.request('DELETE', `${base}shop-example-com/`, { token: owner });
    const again = await app.request('GET', `${base}shop-example-com/`, { token: owner });

    expect(answer.status).toBe(204);
    expect(again.status).toBe(404);
    expect(await app.runtime.db.rows(sql`select 1 from platform.domains where domain = 'store.example.com'`)).toEqual([]);
  });

  it('lets view_site holders read but not change (403), and hides the site from outsiders (404)', async () => {
    const read = await app.request('GET', base, { token: viewer });
    const write = await app.request('POST', base, { token: viewer, body: { domain: 'viewer.example.com' } });
    const outsiderRead = await app.request('GET', base, { token: outsider });
    const outsiderWrite = await app.request('PATCH', `${base}web-localhost/`, { token: outsider, body: { is_primary: true } });

    expect(read.status).toBe(200);
    expect(write.status).toBe(403);
    expect(outsiderRead.status).toBe(404);
    expect(outsiderWrite.status).toBe(404);
  });

  it('does not find a domain of one site under another site', async () => {
    const answer = await app.request('GET', '/api/cloud/sites/far/domains/web-localhost/', { token: outsider });

    expect(answer.status).toBe(404);
  });
});
