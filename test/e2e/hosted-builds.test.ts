import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { zipArchive } from '#test/support/archives.ts';
import { sendBinary } from '#test/support/storage.ts';
import { INDEX_HTML, WORKERS, createHostingSite, createWorker, postForm, type HostingSite } from '#test/support/hosting.ts';

const HASHED = 'assets/app.3f9a1c2e.js';

describe('serving hosted builds on the dev server', () => {
  let app: TestApp;
  let admin: string;
  let site: HostingSite;
  let port: string;
  const fromHost = (host: string, route: string, headers: Record<string, string> = {}, method = 'GET') =>
    sendBinary(app.url, method, route, { headers: { host: `${host}:${port}`, ...headers } });

  beforeAll(async () => {
    app = await startTestApp();
    port = new URL(app.url).port;
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Serving Site');
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Web', subdomain_input: 'web' },
      {
        filename: 'web.zip',
        data: zipArchive([
          { name: 'index.html', data: INDEX_HTML },
          { name: HASHED, data: 'console.log("hashed");', deflate: true },
          { name: 'assets/style.css', data: 'body{}' },
          { name: 'logo.svg', data: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
        ]),
      },
    );
    if (created.status !== 201) throw new Error(JSON.stringify(created.json));
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves index.html at / with its content type, no-cache and an ETag', async () => {
    const page = await fromHost('web.localhost', '/');

    expect(page.status).toBe(200);
    expect(page.bytes.toString()).toBe(INDEX_HTML);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('etag')).toMatch(/^".+"$/);
  });

  it('serves hashed assets as immutable and other files for revalidation, with their types', async () => {
    const hashed = await fromHost('web.localhost', `/${HASHED}`);
    const css = await fromHost('web.localhost', '/assets/style.css');
    const svg = await fromHost('WEB.localhost', '/logo.svg');

    expect(hashed.bytes.toString()).toBe('console.log("hashed");');
    expect(hashed.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('no-cache');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await fromHost('web.localhost', `/${HASHED}`);
    const again = await fromHost('web.localhost', `/${HASHED}`, { 'if-none-match': first.headers.get('etag')! });
    const head = await fromHost('web.localhost', '/', {}, 'HEAD');

    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(INDEX_HTML)));
    expect(head.bytes.length).toBe(0);
  });

  it('falls back to index.html for client-side routes, but not for missing files', async () => {
    const route = await fromHost('web.localhost', '/dashboard/settings');
    const missing = await fromHost('web.localhost', '/assets/missing.png');

    expect(route.status).toBe(200);
    expect(route.bytes.toString()).toBe(INDEX_HTML);
    expect(route.headers.get('cache-control')).toBe('no-cache');
    expect(missing.status).toBe(404);
  });

  it('never serves a file outside the build', async () => {
    for (const attack of [
      '/../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2f..%2fetc%2fpasswd',
      '/%E0%A4%A',
      '/a%00b.js',
      '/..\\..\\etc\\passwd.txt',
    ]) {
      const answer = await fromHost('web.localhost', attack);
      expect(answer.bytes.toString()).not.toContain('root:');
      expect([200, 404]).toContain(answer.status);
    }
  });

  it('refuses methods other than GET and HEAD with 405', async () => {
    const posted = await fromHost('web.localhost', '/', {}, 'POST');

    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });

  it('switches to another build at once when it is activated', async () => {
    const before = await fromHost('web.localhost', '/');
    const v2 = await postForm(
      app,
      admin,
      site,
      `${WORKERS}web/builds/`,
      {},
      { filename: 'v2.zip', data: zipArchive([{ name: 'index.html', data: '<p>v2</p>' }]) },
    );
    const after = await fromHost('web.localhost', '/');
    const builds = await app.request('GET', `${WORKERS}web/builds/`, { token: admin, headers: site.tenant });
    const first = builds.body.data.find((build: { uuid: string }) => build.uuid !== v2.json.data.uuid).uuid;
    await app.request('POST', `${WORKERS}web/builds/${first}/activate/`, { token: admin, headers: site.tenant });
    const rolledBack = await fromHost('web.localhost', '/');

    expect(before.bytes.toString()).toBe(INDEX_HTML);
    expect(after.bytes.toString()).toBe('<p>v2</p>');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(rolledBack.bytes.toString()).toBe(INDEX_HTML);
  });

  it('leaves hosts without a build and /api/ paths to the API', async () => {
    const unknownHost = await fromHost('nobody.localhost', '/');
    const api = await fromHost('web.localhost', '/api/frontend_workers/', { authorization: `Bearer ${admin}`, 'x-tenant': site.slug });

    expect(unknownHost.json).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    expect(api.status).toBe(200);
    expect(api.json.data[0].slug).toBe('web');
  });

  it('moves with its worker: after a subdomain PATCH the new host serves the build and the old one nothing', async () => {
    await createWorker(
      app,
      admin,
      site,
      { name: 'Mover', subdomain_input: 'mover' },
      { filename: 'mover.zip', data: zipArchive([{ name: 'index.html', data: 'moving' }]) },
    );
    const before = await fromHost('mover.localhost', '/');
    const patched = await app.request('PATCH', `${WORKERS}mover/`, {
      token: admin,
      headers: site.tenant,
      body: { subdomain_input: 'moved' },
    });
    const oldHost = await fromHost('mover.localhost', '/');
    const newHost = await fromHost('moved.localhost', '/');

    expect(before.bytes.toString()).toBe('moving');
    expect(patched.status).toBe(200);
    expect(oldHost.json).toMatchObject({ code: 'NOT_FOUND' });
    expect(newHost.bytes.toString()).toBe('moving');
  });

  it('stops serving a deleted worker', async () => {
    await createWorker(
      app,
      admin,
      site,
      { name: 'Gone', subdomain_input: 'gone' },
      { filename: 'gone.zip', data: zipArchive([{ name: 'index.html', data: 'gone' }]) },
    );
    const served = await fromHost('gone.localhost', '/');
    await app.request('DELETE', `${WORKERS}gone/`, { token: admin, headers: site.tenant });
    const afterDelete = await fromHost('gone.localhost', '/');

    expect(served.bytes.toString()).toBe('gone');
    expect(afterDelete.json).toMatchObject({ code: 'NOT_FOUND' });
  });
});
