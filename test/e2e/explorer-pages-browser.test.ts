// A real browser (Debian's chromium, driven by playwright-core) opens both explorer pages on the dev
// server: each renders the operations of the API's document, under its Content-Security-Policy,
// without a request to any other host. The screenshots land under test-results/docs/.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const OUTPUT = path.resolve('test-results', 'docs');
/** Rendering some 150 operations takes a while on a busy machine. */
const RENDER_TIMEOUT_MS = 90_000;

interface Watched {
  page: Page;
  /** Requests to anywhere but the dev server (a CDN, a validator, fonts) that got an answer. */
  elsewhere: string[];
  /** Console errors, among them every Content-Security-Policy violation. */
  errors: string[];
}

/**
 * Redoc's menu always shows the Redocly logo from cdn.redoc.ly (no option turns it off); the
 * policy refuses that image, and Redoc then leaves the logo out. Any other refusal is a failure.
 */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

function refusals(errors: readonly string[]): string[] {
  return errors.filter((text) => /Content Security Policy|Refused to/i.test(text) && !text.includes(REDOCLY_LOGO));
}

describe('the explorer pages in a browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp();
    await mkdir(OUTPUT, { recursive: true });
    // Root in these containers: chromium's sandbox needs a user namespace it cannot have.
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function open(pagePath: string): Promise<Watched> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watched: Watched = { page, elsewhere: [], errors: [] };
    const origin = new URL(app.url).origin;
    page.on('requestfinished', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) watched.elsewhere.push(url);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') watched.errors.push(message.text());
    });
    page.on('pageerror', (error) => watched.errors.push(error.message));
    await page.goto(`${app.url}${pagePath}`);
    return watched;
  }

  it('Swagger UI at /api/docs/ renders the operations with their summaries', async () => {
    // Act
    // Deep link to the liveness operation: Swagger UI opens its group's section there.
    const { page, elsewhere, errors } = await open('/api/docs/#/docs/get_api_health');
    await page.getByText('Liveness: the function answers (no database is reached)').waitFor({ timeout: RENDER_TIMEOUT_MS });
    // Swagger UI renders in several passes and scrolls to the deep-linked operation, which can take
    // the docs section's heading out of the page; wait for the opened operation itself.
    const opened = page.locator('#operations-docs-get_api_health.is-open');
    await opened.waitFor({ timeout: RENDER_TIMEOUT_MS });
    await page.screenshot({ path: path.join(OUTPUT, 'swagger-ui.png') });
    // Assess: the docs group's section, open at the deep-linked operation with its answer's example
    // (Swagger UI renders the other sections as the page scrolls to them).
    expect(await page.locator('[id^="operations-docs-"]').count()).toBeGreaterThan(3);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(5);
    expect(await opened.textContent()).toContain('"status": "ok"');
    expect(elsewhere).toEqual([]);
    expect(refusals(errors)).toEqual([]);
    await page.close();
  }, 120_000);

  it('Redoc at /api/redoc/ renders the operations with their summaries', async () => {
    // Act
    const { page, elsewhere, errors } = await open('/api/redoc/');
    // The middle column's heading of the operation (the menu holds the same text, folded away).
    await page.locator('h2', { hasText: 'Obtain an access and a refresh token' }).first().waitFor({ timeout: RENDER_TIMEOUT_MS });
    await page.screenshot({ path: path.join(OUTPUT, 'redoc.png') });
    // Assess
    expect(await page.locator('h2', { hasText: 'Readiness: the database and the object store answer (503 when not)' }).count()).toBe(1);
    expect(await page.locator('h2').count()).toBeGreaterThan(100);
    expect(await page.title()).toBe('Tessera API reference');
    expect(elsewhere).toEqual([]);
    expect(refusals(errors)).toEqual([]);
    await page.close();
  }, 120_000);
});
