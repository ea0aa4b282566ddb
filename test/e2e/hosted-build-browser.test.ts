// A real browser (Debian's chromium, driven by playwright-core) loads a build from its subdomain on
// the dev server and runs its script; the screenshot lands under test-results/.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { tarArchive } from '#test/support/archives.ts';
import { createHostingSite, createWorker } from '#test/support/hosting.ts';

const OUTPUT = path.resolve('test-results', 'hosting');
const PAGE =
  '<!doctype html><html><head><title>before</title><script type="module" src="/assets/main.8c1d2e3f.js"></script></head><body><div id="root">waiting for the script</div></body></html>';
const SCRIPT = `document.title = 'script ran';
document.getElementById('root').textContent = 'rendered by ' + location.host + location.pathname;`;

describe('a hosted build in a browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await app.adminToken();
    const site = await createHostingSite(app, admin, 'Browser Site');
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Browser', subdomain_input: 'browser-demo' },
      {
        filename: 'demo.tgz',
        data: await tarArchive(
          [
            { name: 'index.html', data: PAGE },
            { name: 'assets/main.8c1d2e3f.js', data: SCRIPT },
          ],
          { gzip: true },
        ),
      },
    );
    if (created.status !== 201) throw new Error(JSON.stringify(created.json));
    // Root in these containers: chromium's sandbox needs a user namespace it cannot have.
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('loads the build from its subdomain, runs its script, also on a client-side route', async () => {
    const { port } = new URL(app.url);
    const page = await browser.newPage();

    await page.goto(`http://browser-demo.localhost:${port}/projects/42`);
    await page.waitForFunction("document.title === 'script ran'");
    await mkdir(OUTPUT, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT, 'hosted-build.png') });

    expect(await page.textContent('#root')).toBe(`rendered by browser-demo.localhost:${port}/projects/42`);
  });
});
