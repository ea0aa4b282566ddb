// Serving hosted builds on the dev server at its edges: a path below a file is not found (404, not
// a 500 from the store), and a deleted site's (or organization's) worker hosts stop serving at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipArchive } from '#test/support/archives.ts';
import { INDEX_HTML, createHostingSite, createWorker, type HostingSite } from '#test/support/hosting.ts';
import { sendBinary } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('hosted paths at the edges', () => {
  let app: TestApp;
  let admin: string;
  let site: HostingSite;
  let port: string;
  const fromHost = (host: string, route: string) => sendBinary(app.url, 'GET', route, { headers: { host: `${host}:${port}` } });

  beforeAll(async () => {
    app = await startTestApp();
    port = new URL(app.url).port;
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Viewer Site');
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Viewer', subdomain_input: 'viewersite' },
      {
        filename: 'viewer.zip',
        data: zipArchive([
          { name: 'index.html', data: INDEX_HTML },
          { name: 'data.json', data: '{"a":1}' },
          { name: 'assets/app.js', data: 'console.log(1);' },
        ]),
      },
    );
    if (created.status !== 201) throw new Error(JSON.stringify(created.json));
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(['/index.html/', '/data.json/', '/assets/app.js/'])('answers 404 for %s, a path below a file', async (route) => {
    // Act
    const answer = await fromHost('viewersite.localhost', route);

    // Assess
    expect(answer.status).toBe(404);
    expect(answer.bytes.toString()).toBe('Not Found');
  });

  it.each(['/assets', '/assets/app.js/x'])(
    'answers %s, extensionless, with index.html as a client-side route (as the edge does)',
    async (route) => {
      // Act
      const answer = await fromHost('viewersite.localhost', route);

      // Assess
      expect(answer.status).toBe(200);
      expect(answer.bytes.toString()).toBe(INDEX_HTML);
    },
  );

  it("stops serving a deleted site's worker host at once", async () => {
    // Prepare: the host's build is served (and so remembered) before the delete.
    const temp = await createHostingSite(app, admin, 'Temp Site');
    const worker = await createWorker(
      app,
      admin,
      temp,
      { name: 'Temp', subdomain_input: 'temp-web' },
      { filename: 'temp.zip', data: zipArchive([{ name: 'index.html', data: '<p>temp build</p>' }]) },
    );
    expect(worker.status).toBe(201);
    expect((await fromHost('temp-web.localhost', '/')).bytes.toString()).toBe('<p>temp build</p>');

    // Act
    const removed = await app.request('DELETE', `/api/cloud/sites/${temp.slug}/`, { token: admin });
    const after = await fromHost('temp-web.localhost', '/');

    // Assess
    expect(removed.status).toBe(204);
    expect(after.bytes.toString()).not.toContain('temp build');
  });

  it('stops serving the worker hosts of every site of a deleted organization at once', async () => {
    // Prepare: two sites of one organization, each host's build served (and so remembered).
    const org = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name: 'Doomed Hosting org' } });
    const hosts: string[] = [];
    for (const name of ['Doomed Shop', 'Doomed Blog']) {
      const created = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { token: admin, body: { name } });
      const subdomain = `${name.toLowerCase().replace(' ', '-')}-web`;
      const worker = await createWorker(
        app,
        admin,
        { slug: created.body.slug, tenant: { 'x-tenant': created.body.slug } },
        { name, subdomain_input: subdomain },
        { filename: 'doomed.zip', data: zipArchive([{ name: 'index.html', data: `<p>${name} build</p>` }]) },
      );
      expect(worker.status).toBe(201);
      hosts.push(`${subdomain}.localhost`);
    }
    const before = await Promise.all(hosts.map((host) => fromHost(host, '/')));

    // Act
    const removed = await app.request('DELETE', `/api/cloud/organizations/${org.body.data.slug}/`, { token: admin });
    const after = await Promise.all(hosts.map((host) => fromHost(host, '/')));

    // Assess
    expect(before.map((answer) => answer.status)).toEqual([200, 200]);
    expect(removed.status).toBe(204);
    expect(after.map((answer) => answer.status)).toEqual([404, 404]);
  });
});
