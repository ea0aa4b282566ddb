// The docs group through the dev server: the OpenAPI document (JSON and YAML) and both explorer pages
// on the platform host and on a site's host, their strict Content-Security-Policy and files, and the
// health checks: public, never rate limited, readiness 503 in the error envelope when the object
// store cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('API description and health on a working platform', () => {
  let app: TestApp;
  let siteHost: Record<string, string>;
  beforeAll(async () => {
    app = await startTestApp();
    const site = await createSite(app, await app.adminToken(), 'Docs Site');
    siteHost = { host: `${site.slug}.localhost` };
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves the OpenAPI document as JSON on the platform host and a site host, without a token', async () => {
    // Act
    const platform = await app.request('GET', '/api/schema/');
    const tenant = await app.request('GET', '/api/schema/', { headers: siteHost });
    // Assess
    expect(platform.status).toBe(200);
    expect(platform.headers.get('content-type')).toContain('application/json');
    expect(platform.body.openapi).toBe('3.1.0');
    expect(platform.body.paths['/api/health/'].get.summary).toContain('Liveness');
    expect(platform.body.paths['/api/apps/'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(tenant.status).toBe(200);
    expect(tenant.body).toEqual(platform.body);
  });

  it('serves the same document as YAML with ?format=yaml, and refuses an unknown format with a 400', async () => {
    // Act
    const json = await app.request('GET', '/api/schema/');
    const yaml = await app.request('GET', '/api/schema/?format=yaml');
    const unknown = await app.request('GET', '/api/schema/?format=xml');
    // Assess
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    expect(parseYaml(yaml.body)).toEqual(json.body);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
  });

  it.each([
    ['/api/docs/', ['/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-init.js', '/api/docs/swagger-ui.css']],
    ['/api/redoc/', ['/api/redoc/redoc.standalone.js', '/api/redoc/redoc-init.js']],
  ])('serves %s with a CSP that allows scripts only from the host, and every file it loads', async (page, files) => {
    // Act
    const html = await app.request('GET', page, { headers: siteHost });
    // Assess
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    const csp = html.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("default-src 'none'");
    expect(html.body).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|https?:\/\//); // no inline script, nothing from elsewhere
    for (const file of files) {
      expect(html.body).toContain(file);
      const answer = await app.request('GET', file);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-type'), file).toMatch(/^text\/(javascript|css)/);
      expect(answer.body.length, file).toBeGreaterThan(100);
    }
  });

  it('answers 404 for a file the pages do not have, prototype names and paths outside included', async () => {
    for (const file of ['nope.js', '__proto__', 'constructor', 'toString', '..%2F..%2Fpackage.json', 'redoc.standalone.js']) {
      const answer = await app.request('GET', `/api/docs/${file}`);
      expect(answer.status, file).toBe(404);
      expect(answer.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    }
  });

  it('answers liveness and readiness without a token on both hosts', async () => {
    // Act
    const live = await app.request('GET', '/api/health/');
    const ready = await app.request('GET', '/api/health/ready/', { headers: siteHost });
    // Assess
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', object_store: 'ok' } });
  });
});

describe('health checks under a tight rate limit and with the object store down', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
      // An S3 endpoint where nothing listens: the store cannot be reached.
      OBJECT_STORE: 's3',
      S3_BUCKET: 'tessera-unreachable',
      S3_ENDPOINT: 'http://127.0.0.1:9',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'test-key',
      S3_SECRET_ACCESS_KEY: 'test-secret',
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('never counts or refuses a health check, while other anonymous requests are refused past the limit', async () => {
    // Act
    const checks = [];
    for (let sent = 0; sent < 8; sent += 1) checks.push(await app.request('GET', '/api/health/'));
    const schemaAnswers = [];
    for (let sent = 0; sent < 5; sent += 1) schemaAnswers.push(await app.request('GET', '/api/schema/'));
    const afterLimit = await app.request('GET', '/api/health/');
    // Assess
    expect(checks.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(checks[0]!.headers.get('x-ratelimit-limit')).toBeNull();
    expect(schemaAnswers.map((answer) => answer.status)).toContain(429);
    expect(afterLimit.status).toBe(200);
  });

  it('answers readiness 503 in the error envelope naming the store, without its error text', async () => {
    // Act
    const ready = await app.request('GET', '/api/health/ready/');
    const live = await app.request('GET', '/api/health/');
    // Assess
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'error', code: 'SERVICE_UNAVAILABLE', data: { failed: ['object_store'] } });
    expect(JSON.stringify(ready.body)).not.toContain('127.0.0.1');
    expect(live.status).toBe(200);
  });
});
