import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { tarArchive, zipArchive } from '#test/support/archives.ts';
import { sendBinary } from '#test/support/storage.ts';
import {
  INDEX_HTML,
  WORKERS,
  createHostingSite,
  createWorker,
  postForm,
  storedBuildFiles,
  type HostingSite,
} from '#test/support/hosting.ts';

const site1Files = [
  { name: 'index.html', data: INDEX_HTML },
  { name: 'assets/app.js', data: 'document.title = "v1";' },
];

function zipBuild(version: string) {
  return {
    filename: 'build.zip',
    data: zipArchive([
      { name: 'index.html', data: `<p>${version}</p>`, deflate: true },
      { name: 'assets/', data: '' },
      { name: 'assets/app.js', data: `// ${version}` },
    ]),
  };
}

describe('frontend workers', () => {
  let app: TestApp;
  let admin: string;
  let site: HostingSite;
  let other: HostingSite;
  const get = (route: string, on: HostingSite = site) => app.request('GET', route, { token: admin, headers: on.tenant });

  beforeAll(async () => {
    app = await startTestApp({ HOSTED_SITE_URL: 'http://{host}:8000' });
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Hosting Site');
    other = await createHostingSite(app, admin, 'Other Site');
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates a worker from a .zip: 201 with its record, the build active, slug from the subdomain', async () => {
    const created = await createWorker(app, admin, site, { name: 'Marketing', subdomain_input: 'marketing' }, zipBuild('v1'));

    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ success: true, status_code: 201 });
    expect(created.json.data).toMatchObject({
      slug: 'marketing',
      name: 'Marketing',
      subdomain: 'marketing',
      full_domain: 'marketing.localhost',
      web_url: 'http://marketing.localhost:8000/',
      is_internal: true,
      domain: null,
      app: null,
    });
    expect(created.json.data.active_build_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await storedBuildFiles(app)).toHaveLength(2);
  });

  it.each([
    ['site.tar', false],
    ['site.tar.gz', true],
    ['site.tgz', true],
  ])('creates a worker from a %s archive', async (filename, gzip) => {
    const data = await tarArchive([{ name: 'dist/', type: 'directory' }, ...site1Files], { gzip });
    const subdomain = `fmt-${filename.replace(/\./g, '-')}`;
    const created = await createWorker(app, admin, site, { name: filename, subdomain_input: subdomain }, { filename, data });

    expect(created.status).toBe(201);
    expect(created.json.data.subdomain).toBe(subdomain);
  });

  it('lists workers in Envelope B with the list representation, searching by name', async () => {
    const listed = await get(`${WORKERS}?search=market&ordering=created_at`);

    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ success: true, total: 1, page: 1, page_size: 20, total_pages: 1 });
    expect(listed.body.data).toEqual([
      {
        slug: 'marketing',
        name: 'Marketing',
        subdomain: 'marketing',
        web_url: 'http://marketing.localhost:8000/',
        active_build_uuid: expect.any(String),
        app_name: null,
      },
    ]);
  });

  it("does not show or touch another site's worker (404)", async () => {
    const detail = await get(`${WORKERS}marketing/`, other);
    const removed = await app.request('DELETE', `${WORKERS}marketing/`, { token: admin, headers: other.tenant });
    const builds = await get(`${WORKERS}marketing/builds/`, other);

    expect([detail.status, removed.status, builds.status]).toEqual([404, 404, 404]);
    expect(detail.body).toMatchObject({ success: false, status_code: 404 });
    expect((await get(`${WORKERS}marketing/`)).status).toBe(200);
  });

  it('uploads a new build that goes live, then rolls back and forward by activating', async () => {
    const worker = await createWorker(app, admin, site, { name: 'Docs', subdomain_input: 'docs-site' }, zipBuild('v1'));
    const first = worker.json.data.active_build_uuid as string;

    const second = await postForm(app, admin, site, `${WORKERS}docs-site/builds/`, {}, zipBuild('v2'));
    const afterUpload = await get(`${WORKERS}docs-site/`);
    const rolledBack = await app.request('POST', `${WORKERS}docs-site/builds/${first}/activate/`, { token: admin, headers: site.tenant });
    const builds = await get(`${WORKERS}docs-site/builds/`);
    const forward = await app.request('POST', `${WORKERS}docs-site/builds/${second.json.data.uuid}/activate/`, {
      token: admin,
      headers: site.tenant,
    });

    expect(second.status).toBe(201);
    expect(second.json.data).toMatchObject({ is_active: true, file_count: 2 });
    expect(afterUpload.body.data.active_build_uuid).toBe(second.json.data.uuid);
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.data).toMatchObject({ uuid: first, is_active: true });
    expect(builds.body.data.map((build: { uuid: string; is_active: boolean }) => [build.uuid, build.is_active])).toEqual([
      [second.json.data.uuid, false],
      [first, true],
    ]);
    expect(forward.body.data).toMatchObject({ uuid: second.json.data.uuid, is_active: true });
  });

  it("refuses to activate a build of another worker or another site's (404)", async () => {
    const mine = await createWorker(app, admin, site, { name: 'Mine', subdomain_input: 'mine' }, zipBuild('m'));
    const theirs = await createWorker(app, admin, other, { name: 'Theirs', subdomain_input: 'theirs' }, zipBuild('t'));

    const crossWorker = await app.request('POST', `${WORKERS}docs-site/builds/${mine.json.data.active_build_uuid}/activate/`, {
      token: admin,
      headers: site.tenant,
    });
    const crossSite = await app.request('POST', `${WORKERS}mine/builds/${theirs.json.data.active_build_uuid}/activate/`, {
      token: admin,
      headers: site.tenant,
    });
    const notUuid = await app.request('POST', `${WORKERS}mine/builds/not-a-uuid/activate/`, { token: admin, headers: site.tenant });

    expect([crossWorker.status, crossSite.status, notUuid.status]).toEqual([404, 404, 400]);
  });

  it('changes the subdomain with PATCH: the slug stays, web_url moves, the old subdomain is free again', async () => {
    await createWorker(app, admin, site, { name: 'Shop', subdomain_input: 'shop' }, zipBuild('s'));

    const patched = await app.request('PATCH', `${WORKERS}shop/`, {
      token: admin,
      headers: site.tenant,
      body: { subdomain_input: 'store' },
    });
    const oldName = await get(`${WORKERS}check-subdomain-availability/?subdomain=shop`);

    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      slug: 'shop',
      subdomain: 'store',
      full_domain: 'store.localhost',
      web_url: 'http://store.localhost:8000/',
    });
    expect(oldName.body.data.available).toBe(true);
  });

  it('refuses a PATCH to a subdomain another worker holds, and unknown fields', async () => {
    const taken = await app.request('PATCH', `${WORKERS}mine/`, {
      token: admin,
      headers: site.tenant,
      body: { subdomain_input: 'marketing' },
    });
    const unknown = await app.request('PATCH', `${WORKERS}mine/`, { token: admin, headers: site.tenant, body: { slug: 'renamed' } });

    expect(taken.status).toBe(400);
    expect(taken.body.errors.subdomain_input).toEqual(['This subdomain is already taken.']);
    expect(unknown.status).toBe(400);
    expect((await get(`${WORKERS}mine/`)).body.data.subdomain).toBe('mine');
  });

  it('deletes a worker with its builds and files, and frees its subdomain', async () => {
    const before = await storedBuildFiles(app);
    await createWorker(app, admin, site, { name: 'Temp', subdomain_input: 'temporary' }, zipBuild('x'));
    await postForm(app, admin, site, `${WORKERS}temporary/builds/`, {}, zipBuild('y'));

    const removed = await app.request('DELETE', `${WORKERS}temporary/`, { token: admin, headers: site.tenant });
    const detail = await get(`${WORKERS}temporary/`);
    const again = await createWorker(app, admin, other, { name: 'Temp elsewhere', subdomain_input: 'temporary' }, zipBuild('z'));

    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ success: true, data: {} });
    expect(detail.status).toBe(404);
    expect((await storedBuildFiles(app)).length).toBe(before.length + 2);
    expect(again.status).toBe(201);
  });

  it('keeps subdomains unique across sites', async () => {
    const clash = await createWorker(app, admin, other, { name: 'Clash', subdomain_input: 'marketing' }, zipBuild('c'));

    expect(clash.status).toBe(400);
    expect(clash.json.errors.subdomain_input).toEqual(['This subdomain is already taken.']);
  });

  it.each([
    ['Upper', 'Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.'],
    ['-lead', 'Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.'],
    ['trail-', 'Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.'],
    ['dots.in.it', 'Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.'],
    ['www', 'This subdomain is reserved.'],
    ['api', 'This subdomain is reserved.'],
  ])('refuses the subdomain %s with 400 and stores nothing', async (subdomain, message) => {
    const before = await storedBuildFiles(app);
    const refused = await createWorker(app, admin, site, { name: 'Bad', subdomain_input: subdomain }, zipBuild('b'));

    expect(refused.status).toBe(400);
    expect(refused.json.errors.subdomain_input).toEqual([message]);
    expect(await storedBuildFiles(app)).toEqual(before);
  });

  it('refuses a site API host as a subdomain (its domain is taken)', async () => {
    const refused = await createWorker(app, admin, other, { name: 'Site host', subdomain_input: site.slug }, zipBuild('h'));

    expect(refused.status).toBe(400);
    expect(refused.json.errors.subdomain_input).toEqual(['This subdomain is already taken.']);
  });

  it('prefixes the full domain with the site environment', async () => {
    const staging = await createHostingSite(app, admin, 'Staging Site', 'staging');
    const development = await createHostingSite(app, admin, 'Dev Site', 'development');

    const onStaging = await createWorker(app, admin, staging, { name: 'Shop', subdomain_input: 'marketing' }, zipBuild('st'));
    const onDevelopment = await createWorker(app, admin, development, { name: 'Shop', subdomain_input: 'marketing' }, zipBuild('dv'));

    expect(onStaging.status).toBe(201);
    expect(onStaging.json.data).toMatchObject({
      subdomain: 'marketing',
      full_domain: 'staging-marketing.localhost',
      web_url: 'http://staging-marketing.localhost:8000/',
    });
    expect(onDevelopment.json.data.full_domain).toBe('dev-marketing.localhost');
  });

  it('creates an external worker on a customer base domain', async () => {
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Brand', subdomain_input: 'www', is_internal: 'false', domain: 'Brand-Example.com' },
      zipBuild('e'),
    );

    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({
      is_internal: false,
      domain: 'brand-example.com',
      full_domain: 'www.brand-example.com',
      web_url: 'https://www.brand-example.com/',
    });
  });

  it.each([
    [undefined, 'A domain is required when is_internal is false.'],
    ['localhost', 'localhost and its subdomains are reserved for the platform.'],
    ['evil.localhost', 'localhost and its subdomains are reserved for the platform.'],
    ['shop.example.com', 'Send the base domain without a subdomain part (example.com, not www.example.com).'],
    ['not a domain', 'Send a domain name such as example.com.'],
  ])('refuses the external domain %s', async (domain, message) => {
    const fields: Record<string, string> = { name: 'Ext', subdomain_input: 'ext', is_internal: 'false' };
    if (domain !== undefined) fields.domain = domain;
    const refused = await createWorker(app, admin, site, fields, zipBuild('x'));

    expect(refused.status).toBe(400);
    expect(refused.json.errors.domain).toEqual([message]);
  });

  it('answers availability of a free subdomain', async () => {
    const free = await get(`${WORKERS}check-subdomain-availability/?subdomain=brand-new`);

    expect(free.status).toBe(200);
    expect(free.body).toMatchObject({ success: true });
    expect(free.body.data).toEqual({
      subdomain: 'brand-new',
      available: true,
      full_domain: 'brand-new.localhost',
      domain: 'localhost',
      is_internal: true,
      message: 'This subdomain is available.',
    });
  });

  it('suggests five free subdomains in the spec order when one is taken, naming the conflicting worker of the site', async () => {
    await createWorker(app, admin, site, { name: 'Portal taker', subdomain_input: 'marketing-app' }, zipBuild('p'));
    const year = new Date().getUTCFullYear();

    const taken = await get(`${WORKERS}check-subdomain-availability/?subdomain=marketing`);

    expect(taken.body.data).toMatchObject({ available: false, conflicts_with: { worker_slug: 'marketing', worker_name: 'Marketing' } });
    expect(taken.body.data.suggestions).toEqual([
      { subdomain: 'marketing-hosting-site', full_domain: 'marketing-hosting-site.localhost', reason: 'context-aware' },
      { subdomain: `marketing-${year}`, full_domain: `marketing-${year}.localhost`, reason: 'context-aware' },
      { subdomain: 'marketing-portal', full_domain: 'marketing-portal.localhost', reason: 'semantic' },
      { subdomain: 'marketing-hub', full_domain: 'marketing-hub.localhost', reason: 'semantic' },
      { subdomain: 'marketing-365', full_domain: 'marketing-365.localhost', reason: 'smart-numeric' },
    ]);
  });

  it("does not name another site's worker, treats the excluded slug as free, and suggests for reserved names", async () => {
    const fromOther = await get(`${WORKERS}check-subdomain-availability/?subdomain=marketing`, other);
    const own = await get(`${WORKERS}check-subdomain-availability/?subdomain=marketing&exclude_slug=marketing`);
    const reserved = await get(`${WORKERS}check-subdomain-availability/?subdomain=admin`);

    expect(fromOther.body.data.available).toBe(false);
    expect(fromOther.body.data.conflicts_with).toBeUndefined();
    expect(own.body.data.available).toBe(true);
    expect(reserved.body.data).toMatchObject({ available: false, message: 'This subdomain is reserved.' });
    expect(reserved.body.data.suggestions).toHaveLength(5);
  });

  it('answers 400 with errors.subdomain for a malformed subdomain', async () => {
    const bad = await get(`${WORKERS}check-subdomain-availability/?subdomain=Not_Valid`);
    const missing = await get(`${WORKERS}check-subdomain-availability/`);

    expect(bad.status).toBe(400);
    expect(bad.body.errors.subdomain).toEqual(['Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.']);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.subdomain).toBeDefined();
  });

  it('needs a signed-in caller with access to the site', async () => {
    const anonymous = await sendBinary(app.url, 'GET', WORKERS, { headers: site.tenant });
    await app.createUser('outsider');
    const outsider = (await app.login('outsider', 'user-password-123')).access;
    const stranger = await app.request('GET', WORKERS, { token: outsider, headers: site.tenant });

    expect(anonymous.status).toBe(401);
    expect(stranger.status).toBe(403);
  });
});
