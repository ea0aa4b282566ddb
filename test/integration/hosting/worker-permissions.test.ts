// Who may change a site's frontend workers: as for its other content, any user of the site lists
// and reads workers, builds and subdomain availability; creating, changing and deleting a worker,
// uploading a build and activating one need manage_site or admin_site, else 403 PERMISSION_DENIED
// with nothing changed (no worker, no build, no stored file, no host moved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipArchive } from '#test/support/archives.ts';
import { WORKERS, createWorker, postForm, storedBuildFiles } from '#test/support/hosting.ts';
import { createStorageSite, sendBinary, siteUser, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const REFUSAL = {
  success: false,
  status_code: 403,
  code: 'PERMISSION_DENIED',
  message: 'Changing frontend workers and their builds needs manage_site or admin_site on this site.',
};

function build(version: string) {
  return { filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: `<p>${version}</p>` }]) };
}

describe('frontend worker permissions', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let viewer: string;
  let manager: string;
  let port: string;
  let made = 0;
  const call = (method: string, route: string, token: string, body?: unknown) =>
    app.request(method, route, { token, headers: site.tenant, body });
  const fromHost = (host: string) => sendBinary(app.url, 'GET', '/', { headers: { host: `${host}:${port}` } });

  /** A worker made by the site's admin, with two builds (the second active). */
  async function newWorker(): Promise<{ slug: string; host: string; first: string; second: string }> {
    const n = ++made;
    const created = await createWorker(app, admin, site, { name: `Guarded ${n}`, subdomain_input: `guarded-${n}` }, build('v1'));
    expect(created.status).toBe(201);
    const slug = created.json.data.slug as string;
    const second = await postForm(app, admin, site, `${WORKERS}${slug}/builds/`, {}, build('v2'));
    expect(second.status).toBe(201);
    return { slug, host: created.json.data.full_domain, first: created.json.data.active_build_uuid, second: second.json.data.uuid };
  }

  /** What a refused call must leave alone: the site's workers, their builds, the stored files. */
  async function state(slug: string) {
    return {
      workers: (await call('GET', `${WORKERS}?page_size=100`, admin)).body.data,
      worker: (await call('GET', `${WORKERS}${slug}/`, admin)).body.data,
      builds: (await call('GET', `${WORKERS}${slug}/builds/`, admin)).body.data,
      files: (await storedBuildFiles(app)).sort(),
    };
  }

  beforeAll(async () => {
    app = await startTestApp();
    port = new URL(app.url).port;
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Worker Permissions');
    viewer = await siteUser(app, admin, site, 'hw-viewer', ['view_site']);
    manager = await siteUser(app, admin, site, 'hw-manager', ['manage_site']);
  });
  afterAll(async () => {
    await app.close();
  });

  it('lets a view_site user list and read workers, builds and availability', async () => {
    // Prepare
    const worker = await newWorker();

    // Act
    const list = await call('GET', WORKERS, viewer);
    const detail = await call('GET', `${WORKERS}${worker.slug}/`, viewer);
    const builds = await call('GET', `${WORKERS}${worker.slug}/builds/`, viewer);
    const availability = await call('GET', `${WORKERS}check-subdomain-availability/?subdomain=free-one`, viewer);

    // Assess
    expect([list.status, detail.status, builds.status, availability.status]).toEqual([200, 200, 200, 200]);
    expect(detail.body.data.slug).toBe(worker.slug);
  });

  it('refuses a view_site user creating a worker with 403, storing nothing', async () => {
    // Prepare
    const worker = await newWorker();
    const before = await state(worker.slug);

    // Act
    const created = await createWorker(app, viewer, site, { name: 'Intruder', subdomain_input: 'intruder' }, build('x'));

    // Assess
    expect(created.status).toBe(403);
    expect(created.json).toMatchObject(REFUSAL);
    expect(await state(worker.slug)).toEqual(before);
    expect((await call('GET', `${WORKERS}intruder/`, admin)).status).toBe(404);
  });

  it('refuses a view_site user uploading a build with 403: the active build and the served page stay', async () => {
    // Prepare
    const worker = await newWorker();
    const before = await state(worker.slug);

    // Act
    const uploaded = await postForm(app, viewer, site, `${WORKERS}${worker.slug}/builds/`, {}, build('defaced'));

    // Assess
    expect(uploaded.status).toBe(403);
    expect(uploaded.json).toMatchObject(REFUSAL);
    expect(await state(worker.slug)).toEqual(before);
    expect((await fromHost(worker.host)).bytes.toString()).toBe('<p>v2</p>');
  });

  it('refuses a view_site user activating a build with 403', async () => {
    // Prepare
    const worker = await newWorker();
    const before = await state(worker.slug);

    // Act
    const activated = await call('POST', `${WORKERS}${worker.slug}/builds/${worker.first}/activate/`, viewer);

    // Assess
    expect(activated.status).toBe(403);
    expect(activated.body).toMatchObject(REFUSAL);
    expect(await state(worker.slug)).toEqual(before);
    expect((await fromHost(worker.host)).bytes.toString()).toBe('<p>v2</p>');
  });

  it('refuses a view_site user changing a worker with 403', async () => {
    // Prepare
    const worker = await newWorker();
    const before = await state(worker.slug);

    // Act
    const patched = await call('PATCH', `${WORKERS}${worker.slug}/`, viewer, { subdomain_input: `moved-${made}`, name: 'Renamed' });

    // Assess
    expect(patched.status).toBe(403);
    expect(patched.body).toMatchObject(REFUSAL);
    expect(await state(worker.slug)).toEqual(before);
  });

  it('refuses a view_site user deleting a worker with 403', async () => {
    // Prepare
    const worker = await newWorker();
    const before = await state(worker.slug);

    // Act
    const removed = await call('DELETE', `${WORKERS}${worker.slug}/`, viewer);

    // Assess
    expect(removed.status).toBe(403);
    expect(removed.body).toMatchObject(REFUSAL);
    expect(await state(worker.slug)).toEqual(before);
    expect((await fromHost(worker.host)).status).toBe(200);
  });

  it('lets a manage_site user create, change, upload to, activate and delete a worker', async () => {
    // Act
    const created = await createWorker(app, manager, site, { name: 'Managed', subdomain_input: 'managed' }, build('m1'));
    const slug = created.json.data.slug as string;
    const uploaded = await postForm(app, manager, site, `${WORKERS}${slug}/builds/`, {}, build('m2'));
    const activated = await call('POST', `${WORKERS}${slug}/builds/${created.json.data.active_build_uuid}/activate/`, manager);
    const patched = await call('PATCH', `${WORKERS}${slug}/`, manager, { name: 'Managed 2' });
    const removed = await call('DELETE', `${WORKERS}${slug}/`, manager);

    // Assess
    expect([created.status, uploaded.status, activated.status, patched.status, removed.status]).toEqual([201, 201, 200, 200, 200]);
  });
});
