import { request } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, multipart, type StorageSite, storedFileCount, siteSender } from '#test/support/storage.ts';

describe('upload validation', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let small: string;
  let typed: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const files = () => storedFileCount(app);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Validation Site');
    small = await createBucket(app, admin, site, { name: 'Small', file_size_limit: 1000 });
    typed = await createBucket(app, admin, site, { name: 'Typed', allowed_mime_types: ['image/*', 'application/pdf'] });
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses an upload over the bucket limit with the spec body, and stores nothing', async () => {
    const before = await files();

    const over = await send('PUT', `${small}big.bin`, { body: Buffer.alloc(1001, 1) });
    const exact = await send('PUT', `${small}exact.bin`, { body: Buffer.alloc(1000, 1) });

    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({ success: false, status_code: 400 });
    expect(over.json.message).toMatch(/size exceeds bucket limit/i);
    expect(exact.status).toBe(201);
    expect(await files()).toBe(before + 1);
  });

  it('stops a chunked upload with no Content-Length as soon as it passes the limit', async () => {
    const before = await files();
    let sent = 0;
    // 4 MB in 64 KB chunks, announced by nobody: only counting while streaming can catch it.
    const body = new Readable({
      read() {
        if (sent >= 4 * 1024 * 1024) {
          this.push(null);
          return;
        }
        sent += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 2));
      },
    });

    const answer = await send('PUT', `${small}stream.bin`, { body, headers: { 'transfer-encoding': 'chunked' } });

    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(/size exceeds bucket limit/i);
    expect(await files()).toBe(before);
    expect((await send('GET', `${small}stream.bin`)).status).toBe(404);
  });

  it('refuses a multipart file over the limit, for path, legacy and batch uploads', async () => {
    const before = await files();
    const single = multipart([{ name: 'file', filename: 'big.bin', contentType: 'application/octet-stream', data: Buffer.alloc(5000) }]);
    const batch = multipart([{ name: 'files', filename: 'big.bin', contentType: 'application/octet-stream', data: Buffer.alloc(5000) }]);

    const byPath = await send('PUT', `${small}mp.bin`, { body: single.body, headers: { 'content-type': single.contentType } });
    const legacy = await send('POST', small, { body: single.body, headers: { 'content-type': single.contentType } });
    const batched = await send('POST', `${small}batch-upload/`, { body: batch.body, headers: { 'content-type': batch.contentType } });

    expect(byPath.status).toBe(400);
    expect(byPath.json.message).toMatch(/size exceeds bucket limit/i);
    expect(legacy.status).toBe(400);
    expect(batched.status).toBe(400);
    expect(batched.json.data.failed[0].error).toMatch(/size exceeds bucket limit/i);
    expect(await files()).toBe(before);
  });

  it('admits types matching the allow-list patterns and refuses others, naming the allowed types', async () => {
    const before = await files();

    const png = await send('PUT', `${typed}a.png`, { body: 'png', headers: { 'content-type': 'image/png' } });
    const webp = await send('PUT', `${typed}a.webp`, { body: 'webp', headers: { 'content-type': 'image/webp; q=1' } });
    const pdf = await send('PUT', `${typed}a.pdf`, { body: 'pdf', headers: { 'content-type': 'application/pdf' } });
    const text = await send('PUT', `${typed}a.txt`, { body: 'txt', headers: { 'content-type': 'text/plain' } });
    const guessed = await send('PUT', `${typed}page.html`, { body: '<p>' });
    const form = multipart([{ name: 'file', filename: 'x.zip', contentType: 'application/zip', data: 'zip' }]);
    const legacy = await send('POST', typed, { body: form.body, headers: { 'content-type': form.contentType } });

    expect([png.status, webp.status, pdf.status]).toEqual([201, 201, 201]);
    expect(webp.json.data.mimetype).toBe('image/webp');
    expect(text.status).toBe(400);
    expect(text.json).toMatchObject({ success: false, status_code: 400, allowed_mime_types: ['image/*', 'application/pdf'] });
    expect(text.json.message).toContain('image/*, application/pdf');
    expect(guessed.status).toBe(400);
    expect(legacy.status).toBe(400);
    expect(await files()).toBe(before + 3);
  });

  it('refuses an empty file, raw or multipart', async () => {
    const before = await files();
    const form = multipart([{ name: 'file', filename: 'empty.txt', contentType: 'text/plain', data: '' }]);

    const raw = await send('PUT', `${small}empty.txt`, { body: '', headers: { 'content-type': 'text/plain' } });
    const legacy = await send('POST', small, { body: form.body, headers: { 'content-type': form.contentType } });

    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({ success: false, status_code: 400 });
    expect(raw.json.message).toMatch(/empty/);
    expect(legacy.status).toBe(400);
    expect(await files()).toBe(before);
  });

  it('keeps nothing of an upload whose client breaks off, and goes on serving', async () => {
    const before = await files();
    const { hostname, port } = new URL(app.url);
    const broken = request({
      hostname,
      port,
      method: 'PUT',
      path: `${typed}broken.png`,
      headers: { ...site.tenant, authorization: `Bearer ${admin}`, 'content-type': 'image/png', 'content-length': String(1024 * 1024) },
    });
    broken.on('error', () => undefined);
    broken.write(Buffer.alloc(64 * 1024, 1));
    await sleep(200);
    broken.destroy();
    // The server notices the closed socket, fails the upload and removes its temporary file.
    for (let i = 0; i < 50 && (await files()) !== before; i += 1) await sleep(50);

    expect(await files()).toBe(before);
    expect((await send('GET', `${typed}broken.png`)).status).toBe(404);
    expect((await send('PUT', `${typed}after.png`, { body: 'png', headers: { 'content-type': 'image/png' } })).status).toBe(201);
  });

  it('refuses a Content-Type that is not a media type and a malformed multipart body', async () => {
    const garbage = await send('PUT', `${small}x.bin`, { body: 'x', headers: { 'content-type': 'not a type' } });
    const broken = await send('PUT', `${small}y.bin`, {
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="y.bin"\r\n\r\nunterminated',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });

    expect(garbage.status).toBe(400);
    expect(broken.status).toBe(400);
    expect(broken.json.success).toBe(false);
  });
});
