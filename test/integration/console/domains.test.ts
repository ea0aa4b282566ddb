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

  // Every test but the host-syntax refusals makes a site of its own (and hosts numbered for it), so
  // the tests pass in any order (--sequence.shuffle).
  let made = 0;
  interface TestSite {
    slug: string;
    base: string;
    /** `<slug>.localhost`, the primary domain creating the site registered, and its slug. */
    primary: string;
    primarySlug: string;
    n: number;
  }
  async function newSite(): Promise<TestSite> {
    const n = ++made;
    const created = await app.request('POST', '/api/cloud/organizations/dom-org/sites/', { token: owner, body: { name: `Web ${n}` } });
    expect(created.status).toBe(201);
    const slug = created.body.slug as string;
    await app.runtime.db.run(sql`
      insert into platform.site_user_permissions (site_id, user_id, permission_id)
      select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
      where s.slug = ${slug} and u.username = 'dm-viewer' and p.codename = 'view_site'`);
    return { slug, base: `/api/cloud/sites/${slug}/domains/`, primary: `${slug}.localhost`, primarySlug: `${slug}-localhost`, n };
  }

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
    const site = await newSite();
    const answer = await app.request('GET', site.base, { token: owner });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(answer.body.results[0]).toMatchObject({ slug: site.primarySlug, domain: site.primary, is_primary: true, is_active: true });
  });

  it('adds a domain lower-cased with a slug from the host, not primary unless asked', async () => {
    const site = await newSite();
    const answer = await app.request('POST', site.base, { token: owner, body: { domain: ` Shop${site.n}.Example.COM. ` } });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      slug: `shop${site.n}-example-com`,
      domain: `shop${site.n}.example.com`,
      is_primary: false,
      is_active: true,
      site: site.slug,
    });
    expect(await primaries(site.slug)).toEqual([site.primary]);
  });

  it('demotes the old primary when a new primary is added', async () => {
    const site = await newSite();
    const answer = await app.request('POST', site.base, { token: owner, body: { domain: `www${site.n}.example.com`, is_primary: true } });

    expect(answer.status).toBe(201);
    expect(answer.body.is_primary).toBe(true);
    expect(await primaries(site.slug)).toEqual([`www${site.n}.example.com`]);
  });

  it('finds a domain by slug or UUID and makes it primary with PATCH, demoting the other', async () => {
    const site = await newSite();
    const other = await app.request('POST', site.base, { token: owner, body: { domain: `www${site.n}.example.com`, is_primary: true } });
    expect(other.status).toBe(201);
    const bySlug = await app.request('GET', `${site.base}${site.primarySlug}/`, { token: viewer });
    const byUuid = await app.request('GET', `/api/sites/${site.slug}/domains/${bySlug.body.uuid}/`, { token: owner });

    const patched = await app.request('PATCH', `${site.base}${bySlug.body.uuid}/`, { token: owner, body: { is_primary: true } });

    expect(byUuid.body).toEqual(bySlug.body);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ domain: site.primary, is_primary: true });
    expect(await primaries(site.slug)).toEqual([site.primary]);
  });

  it('replaces a domain host with PUT and keeps its slug', async () => {
    const site = await newSite();
    expect((await app.request('POST', site.base, { token: owner, body: { domain: `shop${site.n}.example.com` } })).status).toBe(201);
    const path = `${site.base}shop${site.n}-example-com/`;
    const answer = await app.request('PUT', path, { token: owner, body: { domain: `store${site.n}.example.com` } });
    const missingDomain = await app.request('PUT', path, { token: owner, body: { is_primary: false } });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ slug: `shop${site.n}-example-com`, domain: `store${site.n}.example.com` });
    expect(missingDomain.status).toBe(400);
    expect(missingDomain.body.errors.domain).toEqual(['This field is required.']);
  });

  it('refuses a domain another site holds, with a field error', async () => {
    const site = await newSite();
    const host = `www${site.n}.example.com`;
    expect((await app.request('POST', site.base, { token: owner, body: { domain: host } })).status).toBe(201);
    const answer = await app.request('POST', '/api/cloud/sites/far/domains/', { token: outsider, body: { domain: host.toUpperCase() } });
    const ownHost = await app.request('POST', '/api/cloud/sites/far/domains/', { token: outsider, body: { domain: 'far.localhost' } });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: { domain: ['This domain is already registered.'] } });
    expect(ownHost.status).toBe(400);
    const rows = await app.runtime.db.rows(sql`select 1 from platform.domains where domain = ${host}`);
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
    const site = await newSite();
    const path = `${site.base}${site.primarySlug}/`;
    const unset = await app.request('PATCH', path, { token: owner, body: { is_primary: false } });
    const deactivate = await app.request('PATCH', path, { token: owner, body: { is_active: false } });
    const removed = await app.request('DELETE', path, { token: owner });

    expect(unset.status).toBe(400);
    expect(unset.body.errors.is_primary).toHaveLength(1);
    expect(deactivate.status).toBe(400);
    expect(removed.status).toBe(422);
    expect(removed.body.code).toBe('BUSINESS_LOGIC_ERROR');
    expect(await primaries(site.slug)).toEqual([site.primary]);
  });

  it('deletes a domain that is not the primary', async () => {
    const site = await newSite();
    const host = `shop${site.n}.example.com`;
    expect((await app.request('POST', site.base, { token: owner, body: { domain: host } })).status).toBe(201);
    const answer = await app.request('DELETE', `${site.base}shop${site.n}-example-com/`, { token: owner });
    const again = await app.request('GET', `${site.base}shop${site.n}-example-com/`, { token: owner });

    expect(answer.status).toBe(204);
    expect(again.status).toBe(404);
    expect(await app.runtime.db.rows(sql`select 1 from platform.domains where domain = ${host}`)).toEqual([]);
  });

  it('lets view_site holders read but not change (403), and hides the site from outsiders (404)', async () => {
    const site = await newSite();
    const read = await app.request('GET', site.base, { token: viewer });
    const write = await app.request('POST', site.base, { token: viewer, body: { domain: `viewer${site.n}.example.com` } });
    const outsiderRead = await app.request('GET', site.base, { token: outsider });
    const outsiderWrite = await app.request('PATCH', `${site.base}${site.primarySlug}/`, { token: outsider, body: { is_primary: true } });

    expect(read.status).toBe(200);
    expect(write.status).toBe(403);
    expect(outsiderRead.status).toBe(404);
    expect(outsiderWrite.status).toBe(404);
  });

  it('does not find a domain of one site under another site', async () => {
    const site = await newSite();
    const answer = await app.request('GET', `/api/cloud/sites/far/domains/${site.primarySlug}/`, { token: outsider });

    expect(answer.status).toBe(404);
  });
});
