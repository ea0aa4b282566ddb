// HEAD on every GET route (RFC 9110 §9.3.2) and the CORS preflight's header lists, through the dev
// server: HEAD answers as GET would without a body; a preflight reflects the headers the API reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, sendBinary, siteSender, type StorageSite } from '#test/support/storage.ts';

const ORIGIN = 'http://app.example.test';

describe('HEAD requests and CORS', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const content = Buffer.from('0123456789abcdefghij');

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Head Site');
    objects = await createBucket(app, admin, site, { name: 'Pub', visibility: 'public' });
    await send('PUT', `${objects}a.txt`, { body: content, headers: { 'content-type': 'text/plain' } });
  });
  afterAll(async () => {
    await app.close();
  });

  describe('HEAD', () => {
    it("answers HEAD on an object with the download's status and headers and no body", async () => {
      const get = await sendBinary(app.url, 'GET', `${objects}a.txt`, { headers: site.tenant });
      const head = await sendBinary(app.url, 'HEAD', `${objects}a.txt`, { headers: site.tenant });

      expect(head.status).toBe(200);
      expect(head.bytes.length).toBe(0);
      for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'accept-ranges', 'content-disposition']) {
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
      }
      expect(head.headers.get('content-length')).toBe('20');
    });

    it('answers HEAD with a range, a matching tag and a missing object as GET does', async () => {
      const etag = (await send('GET', `${objects}a.txt`)).headers.get('etag')!;

      const range = await send('HEAD', `${objects}a.txt`, { headers: { range: 'bytes=2-5' } });
      const notModified = await send('HEAD', `${objects}a.txt`, { headers: { 'if-none-match': etag } });
      const missing = await send('HEAD', `${objects}nothing.txt`);

      expect(range.status).toBe(206);
      expect(range.headers.get('content-range')).toBe('bytes 2-5/20');
      expect(range.headers.get('content-length')).toBe('4');
      expect(notModified.status).toBe(304);
      expect(missing.status).toBe(404);
      for (const answer of [range, notModified, missing]) expect(answer.bytes.length).toBe(0);
    });

    it('answers HEAD on JSON routes with the length of the body GET sends', async () => {
      for (const path of [`${objects}a.txt?metadata=true`, objects, site.buckets, '/api/health/']) {
        const get = await send('GET', path);
        const head = await send('HEAD', path);

        expect(head.status, path).toBe(get.status);
        expect(head.bytes.length, path).toBe(0);
        expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
        expect(head.headers.get('content-length'), path).toBe(String(get.bytes.length));
      }
    });

    it('still refuses HEAD where the path has no GET', async () => {
      const head = await send('HEAD', '/api/storage/document-loader/grant/');

      expect(head.status).toBe(405);
      expect(head.bytes.length).toBe(0);
    });
  });

  describe('CORS preflight', () => {
    const preflight = (requested: string) =>
      sendBinary(app.url, 'OPTIONS', `${objects}photo.png`, {
        headers: { ...site.tenant, origin: ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': requested },
      });

    it('reflects requested metadata headers by name instead of a * pattern', async () => {
      const answer = await preflight('content-type, x-metadata-author, X-Store-Meta-Camera');
      const allowed = answer.headers
        .get('access-control-allow-headers')!
        .toLowerCase()
        .split(/\s*,\s*/);

      expect(answer.status).toBe(204);
      expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-metadata-author', 'x-store-meta-camera']));
      expect(allowed.some((name) => name.includes('*'))).toBe(false);
      expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
      expect(answer.headers.get('vary')).toMatch(/Origin/);
      expect(answer.headers.get('vary')).toMatch(/Access-Control-Request-Headers/);
    });

    it('allows the conditional and range headers and leaves out headers the API does not read', async () => {
      const answer = await preflight('range, if-range, if-none-match, x-secret-thing');
      const allowed = answer.headers
        .get('access-control-allow-headers')!
        .toLowerCase()
        .split(/\s*,\s*/);

      expect(allowed).toEqual(expect.arrayContaining(['range', 'if-range', 'if-none-match']));
      expect(allowed).not.toContain('x-secret-thing');
      expect(answer.headers.get('access-control-allow-methods')).toMatch(/\bHEAD\b/);
    });

    it('exposes the download headers to scripts', async () => {
      const answer = await sendBinary(app.url, 'GET', `${objects}a.txt`, {
        headers: { ...site.tenant, origin: ORIGIN, range: 'bytes=0-1' },
      });
      const exposed = answer.headers
        .get('access-control-expose-headers')!
        .toLowerCase()
        .split(/\s*,\s*/);

      expect(exposed).toEqual(
        expect.arrayContaining(['content-range', 'accept-ranges', 'etag', 'content-disposition', 'x-request-id', 'retry-after']),
      );
    });
  });
});
