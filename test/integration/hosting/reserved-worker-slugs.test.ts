// A worker's slug never equals a fixed route segment under /api/frontend_workers/
// (`check-subdomain-availability`): such a worker could never be read, changed or deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipArchive } from '#test/support/archives.ts';
import { WORKERS, createHostingSite, createWorker, storedBuildFiles, type HostingSite } from '#test/support/hosting.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const ROUTE_SEGMENT = 'check-subdomain-availability';

function build() {
  return { filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: '<p>x</p>' }]) };
}

describe('reserved worker slugs', () => {
  let app: TestApp;
  let admin: string;
  let site: HostingSite;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Slug Site');
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a slug equal to a fixed route segment with 400 naming slug, storing nothing', async () => {
    // Prepare
    const files = await storedBuildFiles(app);

    // Act
    const created = await createWorker(app, admin, site, { name: 'Clash', subdomain_input: 'clash', slug: ROUTE_SEGMENT }, build());

    // Assess
    expect(created.status).toBe(400);
    expect(created.json).toMatchObject({ success: false, code: 'VALIDATION_ERROR', errors: { slug: [expect.any(String)] } });
    expect(await storedBuildFiles(app)).toEqual(files);
    expect((await app.request('GET', WORKERS, { token: admin, headers: site.tenant })).body.total).toBe(0);
  });

  it('gives a worker whose subdomain is a route segment a numbered slug it can be reached by', async () => {
    // Act
    const created = await createWorker(app, admin, site, { name: 'Subdomain', subdomain_input: ROUTE_SEGMENT }, build());
    const detail = await app.request('GET', `${WORKERS}${created.json.data.slug}/`, { token: admin, headers: site.tenant });

    // Assess
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ slug: `${ROUTE_SEGMENT}-2`, subdomain: ROUTE_SEGMENT });
    expect(detail.status).toBe(200);
    expect(detail.body.data.slug).toBe(`${ROUTE_SEGMENT}-2`);
  });
});
