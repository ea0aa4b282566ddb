import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sitePublicUrl, startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, multipart, type StorageSite, storedFileCount, siteSender } from '#test/support/storage.ts';

/** Keys that must never name anything but a plain path under the bucket, as sent in a URL. */
const TRAVERSALS: Array<[string, string]> = [
  ['../x', '../x'],
  ['a/../../x', 'a/../../x'],
  ['%2e%2e/x', '%2e%2e/x'],
  ['%2E%2E%2Fx', '%2E%2E%2Fx'],
  ['/abs', '/abs'],
  ['%2Fabs', '%2Fabs'],
  ['a\\b', 'a%5Cb'],
  ['NUL', 'a%00b'],
  ['control character', 'a%01b'],
  ['dot segment', 'a/./b'],
];

/** The same keys as they appear in JSON bodies. */
const BODY_TRAVERSALS = ['../x', 'a/../../x', '/abs', 'a\\b', 'a\u0000b', 'a\u001fb', './x', ''];

describe('object paths', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const json = (method: string, route: string, body: unknown) =>
    send(method, route, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const storedCount = () => storedFileCount(app);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Path Site');
    objects = await createBucket(app, admin, site, { name: 'Paths' });
    await send('PUT', `${objects}safe/file.txt`, { body: 'safe', headers: { 'content-type': 'text/plain' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(TRAVERSALS)('refuses %s on upload, download, patch and delete with a 400 in the success-flag envelope', async (_, key) => {
    const before = await storedCount();

    const put = await send('PUT', `${objects}${key}`, { body: 'evil', headers: { 'content-type': 'text/plain' } });
    const post = await send('POST', `${objects}${key}`, { body: 'evil', headers: { 'content-type': 'text/plain' } });
    const get = await send('GET', `${objects}${key}`);
    const patch = await send('PATCH', `${objects}${key}`, { body: '{}', headers: { 'content-type': 'application/json' } });
    const remove = await send('DELETE', `${objects}${key}`);

    for (const answer of [put, post, get, patch, remove]) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, status_code: 400, code: 'VALIDATION_ERROR' });
    }
    expect(await storedCount()).toBe(before);
  });

  it.each(BODY_TRAVERSALS.map((path) => [JSON.stringify(path), path]))(
    'refuses %s as a copy, move, legacy, batch or batch-delete path',
    async (_, path) => {
      const before = await storedCount();
      const legacy = multipart([
        { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
        { name: 'path', data: path || '\u0000' },
      ]);
      const batch = multipart([
        { name: 'files', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
        { name: 'paths', data: JSON.stringify([path || '/']) },
      ]);

      const copyFrom = await json('POST', `${objects}copy/`, { source_path: path, destination_path: 'ok.txt' });
      const copyTo = await json('POST', `${objects}copy/`, { source_path: 'safe/file.txt', destination_path: path });
      const moveFrom = await json('POST', `${objects}move/`, { source_path: path, destination_path: 'ok.txt' });
      const moveTo = await json('POST', `${objects}move/`, { source_path: 'safe/file.txt', destination_path: path });
      const legacyUpload = await send('POST', objects, { body: legacy.body, headers: { 'content-type': legacy.contentType } });
      const batchUpload = await send('POST', `${objects}batch-upload/`, {
        body: batch.body,
        headers: { 'content-type': batch.contentType },
      });
      const batchDelete = await json('POST', `${objects}batch-delete/`, { paths: [path] });

      for (const answer of [copyFrom, copyTo, moveFrom, moveTo, legacyUpload, batchDelete]) {
        expect(answer.status).toBe(400);
        expect(answer.json.success).toBe(false);
      }
      // Batch upload reports the file as failed; with every file failed the answer is 400.
      expect(batchUpload.status).toBe(400);
      expect(batchUpload.json.data.failed).toHaveLength(1);
      expect(await storedCount()).toBe(before);
      expect((await send('GET', `${objects}safe/file.txt`)).status).toBe(200);
    },
  );

  it('refuses a PATCH filename with a slash, traversal, backslash or control character', async () => {
    for (const filename of ['a/b.txt', '..', 'a\\b.txt', 'a\u0000b', '']) {
      const answer = await json('PATCH', `${objects}safe/file.txt`, { filename });

      expect(answer.status).toBe(400);
      expect(answer.json.errors).toHaveProperty('filename');
    }
  });

  it('collapses duplicate slashes and drops a trailing slash on upload paths', async () => {
    const created = await send('PUT', `${objects}norm//deep///file.txt/`, { body: 'n', headers: { 'content-type': 'text/plain' } });
    const read = await send('GET', `${objects}norm/deep/file.txt`);

    expect(created.status).toBe(201);
    expect(created.json.data.file_path).toBe('norm/deep/file.txt');
    expect(read.status).toBe(200);
  });

  it('keeps percent-encoded characters that are not traversal as part of the name', async () => {
    const created = await send('PUT', `${objects}${encodeURIComponent('100% real?.txt')}`, {
      body: 'p',
      headers: { 'content-type': 'text/plain' },
    });

    expect(created.status).toBe(201);
    expect(created.json.data.file_path).toBe('100% real?.txt');
    expect(created.json.data.file_url).toBe(`${sitePublicUrl(site.slug)}${objects}100%25%20real%3F.txt`);
    expect((await send('GET', `${objects}100%25%20real%3F.txt`)).bytes.toString()).toBe('p');
  });
});
