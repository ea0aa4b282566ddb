// Findings of the storage probe, through the API: copy and move within one bucket keep its rules,
// paths the document actions take are refused at upload, metadata_search reads keys and values
// (not JSON text), and object reads do not tell a missing bucket from a hidden object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, sendBinary, siteSender, type StorageSite } from '#test/support/storage.ts';

describe('storage probe findings', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const json = (method: string, path: string, body: unknown) =>
    send(method, path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Probe Site');
    objects = await createBucket(app, admin, site, { name: 'Probe' });
  });
  afterAll(async () => {
    await app.close();
  });

  describe('copy and move within one bucket', () => {
    let limited: string;

    beforeAll(async () => {
      limited = await createBucket(app, admin, site, { name: 'Lim' });
      const big = await send('PUT', `${limited}big.bin`, {
        body: Buffer.alloc(2000, 7),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(big.status).toBe(201);
      const patched = await app.request('PATCH', `${site.buckets}lim/`, {
        token: admin,
        headers: site.tenant,
        body: { file_size_limit: 1000, allowed_mime_types: ['image/*'] },
      });
      expect(patched.status).toBe(200);
    });

    it('refuses a copy the bucket would refuse as an upload, by type and by size', async () => {
      const copied = await json('POST', `${limited}copy/`, { source_path: 'big.bin', destination_path: 'big-copy.bin' });

      expect(copied.status).toBe(400);
      expect(copied.json).toMatchObject({ success: false, status_code: 400 });
      expect((await send('GET', `${limited}big-copy.bin`)).status).toBe(404);
    });

    it('refuses a move to a new path of the same bucket under the same rules', async () => {
      const moved = await json('POST', `${limited}move/`, { source_path: 'big.bin', destination_path: 'moved.bin' });

      expect(moved.status).toBe(400);
      expect((await send('GET', `${limited}big.bin?metadata=true`)).status).toBe(200);
    });

    it('refuses the size limit alone once the type is allowed', async () => {
      await app.request('PATCH', `${site.buckets}lim/`, { token: admin, headers: site.tenant, body: { allowed_mime_types: [] } });

      const copied = await json('POST', `${limited}copy/`, { source_path: 'big.bin', destination_path: 'big-copy.bin' });

      expect(copied.status).toBe(400);
      expect(copied.json.message).toMatch(/size/i);
    });
  });

  describe('paths the document actions take', () => {
    it('refuses uploads, copies and upload URLs to paths ending in /view or /edit, and serves the rest', async () => {
      await send('PUT', `${objects}docs/plain.txt`, { body: 'plain', headers: { 'content-type': 'text/plain' } });

      const put = await send('PUT', `${objects}docs/view`, { body: 'x', headers: { 'content-type': 'text/plain' } });
      const post = await send('POST', `${objects}docs/edit/`, { body: 'x', headers: { 'content-type': 'text/plain' } });
      const copy = await json('POST', `${objects}copy/`, { source_path: 'docs/plain.txt', destination_path: 'docs/view' });
      const url = await json('POST', `${objects}docs/edit/upload-url`, { size: 10 });
      const alone = await send('PUT', `${objects}view`, { body: 'alone', headers: { 'content-type': 'text/plain' } });
      const cased = await send('PUT', `${objects}docs/View`, { body: 'cased', headers: { 'content-type': 'text/plain' } });

      for (const answer of [put, post, copy, url]) {
        expect(answer.status).toBe(400);
        expect(answer.json).toMatchObject({ success: false, status_code: 400, code: 'VALIDATION_ERROR' });
      }
      expect(alone.status).toBe(201);
      expect((await send('GET', `${objects}view`)).bytes.toString()).toBe('alone');
      expect(cased.status).toBe(201);
      expect((await send('GET', `${objects}docs/View`)).bytes.toString()).toBe('cased');
    });
  });

  describe('metadata_search', () => {
    beforeAll(async () => {
      const put = (path: string, headers: Record<string, string>) =>
        send('PUT', `${objects}meta/${path}`, { body: path, headers: { 'content-type': 'text/plain', ...headers } });
      await put('quoted.txt', { 'x-metadata-greeting': 'say "hi"' });
      await put('plain.txt', { 'x-metadata-colour': 'Blue' });
      await put('percent.txt', { 'x-metadata-rate': '50% off' });
      const nested = await send('PATCH', `${objects}meta/plain.txt`, {
        body: JSON.stringify({ metadata: { tags: ['Alpha', { deepKey: 'Omega' }] } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(nested.status).toBe(200);
    });

    const found = async (text: string) => {
      const answer = await send('GET', `${objects}?prefix=meta/&metadata_search=${encodeURIComponent(text)}`);
      expect(answer.status).toBe(200);
      return answer.json.data.map((object: { file_path: string }) => object.file_path).sort();
    };

    it('matches a value holding quotes as typed', async () => {
      expect(await found('say "hi"')).toEqual(['meta/quoted.txt']);
    });

    it('matches keys and values anywhere, nested ones too, ignoring case', async () => {
      expect(await found('COLOUR')).toEqual(['meta/plain.txt']);
      expect(await found('blue')).toEqual(['meta/plain.txt']);
      expect(await found('deepkey')).toEqual(['meta/plain.txt']);
      expect(await found('omega')).toEqual(['meta/plain.txt']);
      expect(await found('alpha')).toEqual(['meta/plain.txt']);
    });

    it('does not match the JSON punctuation of the document', async () => {
      expect(await found('{}')).toEqual([]);
      expect(await found('": "')).toEqual([]);
      expect(await found('"colour"')).toEqual([]);
    });

    it('takes % and _ as themselves', async () => {
      expect(await found('50%')).toEqual(['meta/percent.txt']);
      expect(await found('%')).toEqual(['meta/percent.txt']);
      expect(await found('_')).toEqual([]);
    });
  });

  describe('reading objects of buckets an outsider cannot see', () => {
    beforeAll(async () => {
      const secret = await createBucket(app, admin, site, { name: 'Priv' });
      await send('PUT', `${secret}secret.txt`, { body: 'secret', headers: { 'content-type': 'text/plain' } });
    });

    it('answers a missing bucket as a missing object, to anonymous callers and members alike', async () => {
      const missing = await sendBinary(app.url, 'GET', `${site.buckets}nope/objects/secret.txt`, { headers: site.tenant });
      const hidden = await sendBinary(app.url, 'GET', `${site.buckets}priv/objects/secret.txt`, { headers: site.tenant });
      const missingApp = await sendBinary(app.url, 'GET', '/api/apps/no-app/storage/buckets/priv/objects/secret.txt', {
        headers: site.tenant,
      });

      expect(hidden.status).toBe(404);
      for (const answer of [missing, missingApp]) {
        expect(answer.status).toBe(404);
        expect(answer.json).toEqual(hidden.json);
      }
    });

    it('answers router and path-decoding errors on object paths in the objects envelope', async () => {
      const undecodable = await send('GET', `${objects}%c0%ae/secret.txt`);
      const wrongMethod = await send('PUT', objects, { body: 'x' });

      expect(undecodable.status).toBe(400);
      expect(undecodable.json).toEqual({ success: false, message: expect.any(String), status_code: 400, code: 'BAD_REQUEST' });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.json).toEqual({ success: false, message: expect.any(String), status_code: 405, code: 'METHOD_NOT_ALLOWED' });
    });
  });
});
