import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sitePublicUrl, startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, multipart, objectsRoot, type StorageSite, siteSender } from '#test/support/storage.ts';

/** Every file under the object store's root, relative to it (temporary uploads excluded). */
async function storedFiles(app: TestApp): Promise<string[]> {
  const root = objectsRoot(app);
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith('.incoming'));
}

describe('object uploads', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Upload Site');
    objects = await createBucket(app, admin, site, { name: 'Files' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('uploads raw bytes by path with 201, then replaces them with 200 keeping the object', async () => {
    const created = await send('PUT', `${objects}docs/readme.txt`, { body: 'hello world', headers: { 'content-type': 'text/plain' } });
    const replaced = await send('POST', `${objects}docs/readme.txt/`, { body: 'hello again!', headers: { 'content-type': 'text/plain' } });
    const download = await send('GET', `${objects}docs/readme.txt`);

    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ success: true, status_code: 201 });
    expect(created.json.data).toMatchObject({
      filename: 'readme.txt',
      file_path: 'docs/readme.txt',
      size: 11,
      mimetype: 'text/plain',
      metadata: {},
      visibility: null,
      bucket_slug: 'files',
      bucket_name: 'Files',
      is_office_editable: false,
    });
    expect(created.json.data.file_url).toBe(`${sitePublicUrl(site.slug)}${objects}docs/readme.txt`);
    expect(replaced.status).toBe(200);
    expect(replaced.json.status_code).toBe(200);
    expect(replaced.json.data.uuid).toBe(created.json.data.uuid);
    expect(replaced.json.data.size).toBe(12);
    expect(download.bytes.toString()).toBe('hello again!');
  });

  it('builds file_url from configuration, never from the Host header the client sent', async () => {
    const created = await send('PUT', `${objects}hosts/probe.txt`, {
      body: 'probe',
      headers: { 'content-type': 'text/plain', host: 'evil.example' },
    });
    const listed = await send('GET', `${objects}?prefix=hosts/`, { headers: { host: 'evil.example' } });
    const form = multipart([{ name: 'file', filename: 'legacy.txt', contentType: 'text/plain', data: 'legacy' }]);
    const legacy = await send('POST', objects, { body: form.body, headers: { 'content-type': form.contentType, host: 'evil.example' } });

    expect(created.status).toBe(201);
    expect(created.json.data.file_url).toBe(`${sitePublicUrl(site.slug)}${objects}hosts/probe.txt`);
    expect(listed.json.data[0].file_url).toBe(`${sitePublicUrl(site.slug)}${objects}hosts/probe.txt`);
    expect(legacy.json.data.file_url).toBe(`${sitePublicUrl(site.slug)}${objects}legacy.txt`);
    expect(JSON.stringify([created.json, listed.json, legacy.json])).not.toContain('evil.example');
  });

  it('keeps one file per object in storage: the replaced bytes are removed', async () => {
    await send('PUT', `${objects}versions/a.bin`, { body: Buffer.from([1, 2, 3]) });
    const before = await storedFiles(app);
    await send('PUT', `${objects}versions/a.bin`, { body: Buffer.from([4, 5, 6, 7]) });
    const after = await storedFiles(app);

    expect(after.length).toBe(before.length);
    expect(after).not.toEqual(before);
  });

  it('stores X-Metadata-* and X-Store-Meta-* headers as lowercase hyphenated keys', async () => {
    const created = await send('PUT', `${objects}meta/photo.jpg`, {
      body: Buffer.from('jpeg-bytes'),
      headers: {
        'content-type': 'image/jpeg',
        'X-Metadata-Camera_Model': 'X100',
        'X-Store-Meta-Taken-By': 'Ann',
        'x-metadata-taken-by': 'Bob',
      },
    });

    expect(created.json.data.metadata).toEqual({ 'camera-model': 'X100', 'taken-by': 'Bob' });
  });

  it('takes the type from the file name when the upload names none', async () => {
    const created = await send('PUT', `${objects}guess/table.csv`, { body: 'a,b\n1,2\n' });
    const sheet = await send('PUT', `${objects}guess/budget.xlsx`, {
      body: Buffer.from('PK-sheet'),
      headers: { 'content-type': 'application/octet-stream' },
    });

    expect(created.json.data.mimetype).toBe('text/csv');
    expect(sheet.json.data.mimetype).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(sheet.json.data.is_office_editable).toBe(true);
  });

  it('uploads by path from a multipart file field with its own name and metadata', async () => {
    const form = multipart([
      { name: 'metadata', data: JSON.stringify({ album: 'summer' }) },
      { name: 'file', filename: 'beach.png', contentType: 'image/png', data: Buffer.from('png-bytes') },
    ]);
    const created = await send('PUT', `${objects}albums/beach.png`, {
      body: form.body,
      headers: { 'content-type': form.contentType, 'x-metadata-source': 'phone' },
    });

    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ filename: 'beach.png', file_path: 'albums/beach.png', mimetype: 'image/png', size: 9 });
    expect(created.json.data.metadata).toEqual({ source: 'phone', album: 'summer' });
  });

  it('accepts the legacy multipart upload with path and metadata, upserting', async () => {
    const first = multipart([
      { name: 'file', filename: 'report.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1') },
      { name: 'path', data: 'reports/2024/report.pdf' },
      { name: 'metadata', data: JSON.stringify({ year: 2024 }) },
    ]);
    const second = multipart([
      { name: 'path', data: 'reports/2024/report.pdf' },
      { name: 'file', filename: 'report-v2.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-2 longer') },
    ]);
    const bare = multipart([{ name: 'file', filename: 'plain.txt', contentType: 'text/plain', data: 'x' }]);

    const created = await send('POST', objects, { body: first.body, headers: { 'content-type': first.contentType } });
    const replaced = await send('POST', objects, { body: second.body, headers: { 'content-type': second.contentType } });
    const defaulted = await send('POST', objects, { body: bare.body, headers: { 'content-type': bare.contentType } });

    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ file_path: 'reports/2024/report.pdf', filename: 'report.pdf', metadata: { year: 2024 } });
    expect(replaced.status).toBe(200);
    expect(replaced.json.data).toMatchObject({ uuid: created.json.data.uuid, filename: 'report-v2.pdf', size: 13, metadata: {} });
    expect(defaulted.json.data.file_path).toBe('plain.txt');
  });

  it('refuses a legacy upload without a file, with a bad metadata field, or that is not multipart', async () => {
    const noFile = multipart([{ name: 'path', data: 'x.txt' }]);
    const badMeta = multipart([
      { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
      { name: 'metadata', data: '[1,2' },
    ]);
    const listMeta = multipart([
      { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
      { name: 'metadata', data: '[1,2]' },
    ]);
    const before = await storedFiles(app);

    const missing = await send('POST', objects, { body: noFile.body, headers: { 'content-type': noFile.contentType } });
    const malformed = await send('POST', objects, { body: badMeta.body, headers: { 'content-type': badMeta.contentType } });
    const notObject = await send('POST', objects, { body: listMeta.body, headers: { 'content-type': listMeta.contentType } });
    const json = await send('POST', objects, { body: '{}', headers: { 'content-type': 'application/json' } });

    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ success: false, status_code: 400, errors: { file: ['No file was submitted.'] } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors).toHaveProperty('metadata');
    expect(notObject.status).toBe(400);
    expect(json.status).toBe(400);
    expect(await storedFiles(app)).toEqual(before);
  });

  it('batch-uploads files with paths and per-file metadata: 201 when all land', async () => {
    const form = multipart([
      { name: 'files', filename: 'one.txt', contentType: 'text/plain', data: 'one' },
      { name: 'files', filename: 'two.txt', contentType: 'text/plain', data: 'two!' },
      { name: 'paths', data: JSON.stringify(['batch/1.txt', 'batch/2.txt']) },
      { name: 'metadata', data: JSON.stringify([{ n: 1 }, { n: 2 }]) },
    ]);

    const answer = await send('POST', `${objects}batch-upload/`, { body: form.body, headers: { 'content-type': form.contentType } });

    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ success: true, status_code: 201, data: { failed: [] } });
    expect(answer.json.data.uploaded.map((o: { file_path: string; metadata: unknown }) => [o.file_path, o.metadata])).toEqual([
      ['batch/1.txt', { n: 1 }],
      ['batch/2.txt', { n: 2 }],
    ]);
    const stored = await send('GET', `${objects}batch/2.txt`);
    expect(stored.bytes.toString()).toBe('two!');
  });

  it('batch upload answers 207 when some files fail and 400 when none land', async () => {
    await app.request('POST', site.buckets, {
      token: admin,
      headers: site.tenant,
      body: { name: 'Only Images', app_category: 'assets', allowed_mime_types: ['image/*'] },
    });
    const images = `${site.buckets}only-images/objects/`;
    const mixed = multipart([
      { name: 'files', filename: 'ok.png', contentType: 'image/png', data: 'png' },
      { name: 'files', filename: 'no.txt', contentType: 'text/plain', data: 'txt' },
      { name: 'files', filename: 'empty.gif', contentType: 'image/gif', data: '' },
    ]);
    const none = multipart([{ name: 'files', filename: 'no.txt', contentType: 'text/plain', data: 'txt' }]);

    const partial = await send('POST', `${images}batch-upload/`, { body: mixed.body, headers: { 'content-type': mixed.contentType } });
    const failed = await send('POST', `${images}batch-upload/`, { body: none.body, headers: { 'content-type': none.contentType } });

    expect(partial.status).toBe(207);
    expect(partial.json.success).toBe(true);
    expect(partial.json.data.uploaded.map((o: { file_path: string }) => o.file_path)).toEqual(['ok.png']);
    expect(partial.json.data.failed.map((f: { filename: string }) => f.filename)).toEqual(['no.txt', 'empty.gif']);
    expect(partial.json.data.failed[0].error).toMatch(/not allowed/);
    expect(failed.status).toBe(400);
    expect(failed.json).toMatchObject({ success: false, status_code: 400, data: { uploaded: [] } });
  });

  it('refuses a batch of more than 10 files, or paths that do not match the files, keeping nothing', async () => {
    const eleven = multipart(
      Array.from({ length: 11 }, (_, i) => ({ name: 'files', filename: `f${i}.txt`, contentType: 'text/plain', data: `${i}` })),
    );
    const mismatch = multipart([
      { name: 'files', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
      { name: 'paths', data: JSON.stringify(['x.txt', 'y.txt']) },
    ]);
    const before = await storedFiles(app);

    const tooMany = await send('POST', `${objects}batch-upload/`, { body: eleven.body, headers: { 'content-type': eleven.contentType } });
    const wrongPaths = await send('POST', `${objects}batch-upload/`, {
      body: mismatch.body,
      headers: { 'content-type': mismatch.contentType },
    });

    expect(tooMany.status).toBe(400);
    expect(tooMany.json.message).toMatch(/at most 10/);
    expect(wrongPaths.status).toBe(400);
    expect(wrongPaths.json.errors).toHaveProperty('paths');
    expect(await storedFiles(app)).toEqual(before);
  });

  it('streams an upload larger than the 6 MB buffered-body cap through the dev server', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 7);

    const created = await send('PUT', `${objects}large/blob.bin`, { body: big, headers: { 'content-type': 'application/octet-stream' } });
    const download = await send('GET', `${objects}large/blob.bin`);

    expect(created.status).toBe(201);
    expect(created.json.data.size).toBe(big.length);
    expect(download.bytes.equals(big)).toBe(true);
    const onDisk = (await storedFiles(app)).map((file) => path.join(objectsRoot(app), file));
    const sizes = await Promise.all(onDisk.map(async (file) => (await readFile(file)).length));
    expect(sizes).toContain(big.length);
  });
});
