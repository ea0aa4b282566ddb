// Uploads are checked against their bytes, not only their declared type: raw, multipart by path,
// legacy multipart and batch uploads through the dev server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, multipart, type StorageSite, storedFileCount, siteSender } from '#test/support/storage.ts';

/** The start of a Windows executable (DOS header) and of a PNG and a PDF. */
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n');

describe('upload signatures', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let images: string;
  let open: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const files = () => storedFileCount(app);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Signature Site');
    images = await createBucket(app, admin, site, { name: 'Images', allowed_mime_types: ['image/*'] });
    open = await createBucket(app, admin, site, { name: 'Open' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses executable bytes declared as image/png under an .exe name, and stores nothing', async () => {
    const before = await files();

    const refused = await send('PUT', `${images}setup.exe`, { body: EXE, headers: { 'content-type': 'image/png' } });
    const inOpenBucket = await send('PUT', `${open}setup.exe`, { body: EXE, headers: { 'content-type': 'image/png' } });
    const listed = await send('GET', images);

    for (const answer of [refused, inOpenBucket]) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, status_code: 400, detected_mime_type: 'application/x-msdownload' });
      expect(answer.json.message).toContain('image/png');
    }
    expect(listed.json.data).toEqual([]);
    expect(await files()).toBe(before);
  });

  it('refuses bytes that contradict the type a file name suggests when the upload names none', async () => {
    const pdfAsPng = await send('PUT', `${images}scan.png`, { body: PDF });
    const exeAsJpeg = await send('PUT', `${images}photo.jpg`, { body: EXE, headers: { 'content-type': 'application/octet-stream' } });

    for (const answer of [pdfAsPng, exeAsJpeg]) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, status_code: 400 });
    }
    expect(pdfAsPng.json.detected_mime_type).toBe('application/pdf');
    expect((await send('GET', `${images}scan.png?metadata=true`)).status).toBe(404);
  });

  it('refuses wildcard and malformed declared types', async () => {
    for (const type of ['image/*', '*/*', 'image', 'image/png/x', '*']) {
      const answer = await send('PUT', `${open}wild.png`, { body: PNG, headers: { 'content-type': type } });

      expect(answer.status, type).toBe(400);
      expect(answer.json).toMatchObject({ success: false, status_code: 400 });
    }
    const form = multipart([{ name: 'file', filename: 'wild.png', contentType: 'image/*', data: PNG }]);
    const multipartWildcard = await send('POST', open, { body: form.body, headers: { 'content-type': form.contentType } });
    expect(multipartWildcard.status).toBe(400);
    expect((await send('GET', `${open}wild.png?metadata=true`)).status).toBe(404);
  });

  it('stores bytes that agree with their type, and names untyped bytes by their signature', async () => {
    const png = await send('PUT', `${images}dot.png`, { body: PNG, headers: { 'content-type': 'image/png' } });
    const jpgAlias = await send('PUT', `${open}dot.jpg`, { body: PNG, headers: { 'content-type': 'image/jpg' } });
    const untypedPdf = await send('PUT', `${open}untyped`, { body: PDF, headers: { 'content-type': 'application/octet-stream' } });
    const text = await send('PUT', `${open}notes.txt`, {
      body: 'plain notes, [brackets] and all',
      headers: { 'content-type': 'text/plain' },
    });

    expect(png.status).toBe(201);
    expect(png.json.data.mimetype).toBe('image/png');
    expect(jpgAlias.status).toBe(201);
    expect(untypedPdf.status).toBe(201);
    expect(untypedPdf.json.data.mimetype).toBe('application/pdf');
    expect(text.status).toBe(201);
    expect((await send('GET', `${images}dot.png`)).bytes.equals(PNG)).toBe(true);
  });

  it('checks the bytes of multipart uploads by path and legacy uploads', async () => {
    const byPath = multipart([{ name: 'file', filename: 'photo.png', contentType: 'image/png', data: EXE }]);
    const legacy = multipart([{ name: 'file', filename: 'photo.png', contentType: 'image/png', data: EXE }]);
    const good = multipart([{ name: 'file', filename: 'good.png', contentType: 'image/png', data: PNG }]);

    const pathAnswer = await send('PUT', `${images}photo.png`, { body: byPath.body, headers: { 'content-type': byPath.contentType } });
    const legacyAnswer = await send('POST', images, { body: legacy.body, headers: { 'content-type': legacy.contentType } });
    const goodAnswer = await send('POST', images, { body: good.body, headers: { 'content-type': good.contentType } });

    expect(pathAnswer.status).toBe(400);
    expect(legacyAnswer.status).toBe(400);
    expect(legacyAnswer.json.message).toContain('application/x-msdownload');
    expect(goodAnswer.status).toBe(201);
  });

  it('reports a disguised file of a batch as failed and stores the others', async () => {
    const form = multipart([
      { name: 'files', filename: 'a.png', contentType: 'image/png', data: PNG },
      { name: 'files', filename: 'b.png', contentType: 'image/png', data: EXE },
      { name: 'files', filename: 'c.png', contentType: 'image/*', data: PNG },
    ]);

    const answer = await send('POST', `${images}batch-upload/`, { body: form.body, headers: { 'content-type': form.contentType } });

    expect(answer.status).toBe(207);
    expect(answer.json.data.uploaded.map((o: { filename: string }) => o.filename)).toEqual(['a.png']);
    expect(answer.json.data.failed.map((f: { filename: string }) => f.filename)).toEqual(['b.png', 'c.png']);
  });

  it('sniffs a large upload without holding it: 20 MB behind a PNG signature stream through', async () => {
    const body = Buffer.concat([PNG, Buffer.alloc(20 * 1024 * 1024, 7)]);

    const answer = await send('PUT', `${open}big.png`, { body, headers: { 'content-type': 'image/png' } });
    const download = await send('GET', `${open}big.png`);

    expect(answer.status).toBe(201);
    expect(answer.json.data.size).toBe(body.length);
    expect(download.bytes.equals(body)).toBe(true);
  });
});
