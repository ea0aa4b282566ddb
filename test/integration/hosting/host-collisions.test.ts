// One full host belongs to one tenant platform-wide: a site's API host `<slug>.<PLATFORM_DOMAIN>`
// (listed among its domains or not), a site's domain and a frontend worker's host are checked
// against each other by site creation, domain creation and worker create and change.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipArchive } from '#test/support/archives.ts';
import { WORKERS, createHostingSite, createWorker, type HostingSite } from '#test/support/hosting.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const TAKEN_SUBDOMAIN = { code: 'VALIDATION_ERROR', errors: { subdomain_input: ['This subdomain is already taken.'] } };
const TAKEN_DOMAIN = { code: 'VALIDATION_ERROR', errors: { domain: ['This domain is already registered.'] } };

function build(version: string) {
  return { filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: `<p>${version}</p>` }]) };
}

describe('hosts shared by sites, domains and frontend workers', () => {
  let app: TestApp;
  let admin: string;
  let siteA: HostingSite;
  let stranger: HostingSite;

  const claims = () =>
    app.runtime.db.rows(sql`select full_domain, site_id, worker_slug, build_prefix from platform.hosted_domains order by full_domain`);
  const domains = () => app.runtime.db.rows(sql`select domain, site_id, is_primary from platform.domains order by domain`);
  const siteSlugs = async () =>
    (await app.runtime.db.rows<{ slug: string }>(sql`select slug from platform.sites order by slug`)).map((row) => row.slug);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    siteA = await createHostingSite(app, admin, 'Site A');
    stranger = await createHostingSite(app, admin, 'Stranger');
  });
  afterAll(async () => {
    await app.close();
  });

  it("gives a new site a slug whose API host is not another site's worker host", async () => {
    // Prepare
    const worker = await createWorker(app, admin, siteA, { name: 'Shop', subdomain_input: 'shop' }, build('shop'));
    expect(worker.json.data.full_domain).toBe('shop.localhost');
    const org = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Shop Owner org' } });

    // Act
    const created = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, {
      token: admin,
      body: { name: 'Shop' },
    });

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.slug).toBe('shop-2');
    const [shop] = await app.runtime.db.rows<{ site: string }>(sql`
      select s.slug as site from platform.hosted_domains h join platform.sites s on s.id = h.site_id where h.full_domain = 'shop.localhost'`);
    expect(shop?.site).toBe(siteA.slug);
    expect((await domains()).filter((row) => String(row.domain).startsWith('shop'))).toHaveLength(1);
  });

  it("refuses a domain another site's external worker serves, with the domain field error", async () => {
    // Prepare
    const worker = await createWorker(
      app,
      admin,
      siteA,
      { name: 'External', subdomain_input: 'www', is_internal: 'false', domain: 'example.com' },
      build('external'),
    );
    expect(worker.json.data.full_domain).toBe('www.example.com');
    const before = await domains();

    // Act
    const added = await app.request('POST', `/api/cloud/sites/${stranger.slug}/domains/`, {
      token: admin,
      body: { domain: 'WWW.example.com' },
    });

    // Assess
    expect(added.status).toBe(400);
    expect(added.body).toMatchObject(TAKEN_DOMAIN);
    expect(await domains()).toEqual(before);
  });

  it("refuses a worker on another site's API host even when that site no longer lists it, and the site may list it again", async () => {
    // Prepare: site A makes another domain primary and removes its own API host from its domains.
    const base = `/api/cloud/sites/${siteA.slug}/domains/`;
    expect((await app.request('POST', base, { token: admin, body: { domain: 'a.example.org', is_primary: true } })).status).toBe(201);
    expect((await app.request('DELETE', `${base}${siteA.slug}-localhost/`, { token: admin })).status).toBe(204);
    const before = { claims: await claims(), domains: await domains() };

    // Act
    const taken = await createWorker(app, admin, stranger, { name: 'Squat', subdomain_input: siteA.slug }, build('squat'));
    const readded = await app.request('POST', base, { token: admin, body: { domain: `${siteA.slug}.localhost` } });

    // Assess
    expect(taken.status).toBe(400);
    expect(taken.json).toMatchObject(TAKEN_SUBDOMAIN);
    expect((await app.request('GET', `${WORKERS}squat/`, { token: admin, headers: stranger.tenant })).status).toBe(404);
    expect(readded.status).toBe(201);
    expect(await claims()).toEqual(before.claims);
  });

  it("refuses moving a worker onto another site's API host with PATCH, changing nothing", async () => {
    // Prepare
    const worker = await createWorker(app, admin, stranger, { name: 'Mover', subdomain_input: 'mover' }, build('mover'));
    const before = await claims();

    // Act
    const patched = await app.request('PATCH', `${WORKERS}${worker.json.data.slug}/`, {
      token: admin,
      headers: stranger.tenant,
      body: { subdomain_input: siteA.slug },
    });

    // Assess
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject(TAKEN_SUBDOMAIN);
    expect(await claims()).toEqual(before);
  });

  it("shows another site's API host as taken in the availability check", async () => {
    // Act
    const answer = await app.request('GET', `${WORKERS}check-subdomain-availability/?subdomain=${siteA.slug}`, {
      token: admin,
      headers: stranger.tenant,
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ available: false, full_domain: `${siteA.slug}.localhost` });
    expect(answer.body.data.conflicts_with).toBeUndefined();
    expect(await siteSlugs()).toContain(siteA.slug);
  });
});
