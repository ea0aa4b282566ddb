// The presigned flow through the dev server with OBJECT_STORE=s3 (s3rver on loopback behind the
// proxy of test/support/s3-server.ts) and a direct-transfer limit of 1 KiB, as deployed but smaller:
// upload URL, a plain HTTP PUT to it, completion; downloads over the limit redirected to S3.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3TestServer } from '#test/support/s3-server.ts';
import { createBucket, createStorageSite, sendBinary, siteUser, type StorageSite, siteSender } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const DIRECT_LIMIT = 1024;

interface UploadUrlData {
  object_uuid: string;
  file_path: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  expires_at: string;
  complete_url: string;
}

describe('presigned transfers on S3', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let schema: string;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const postJson = (route: string, body: unknown, token = admin) =>
    sendBinary(app.url, 'POST', route, {
      token,
      body: JSON.stringify(body),
      headers: { ...site.tenant, 'content-type': 'application/json' },
    });
  const askUpload = async (route: string, body: unknown): Promise<UploadUrlData> => {
    const answer = await postJson(`${route}/upload-url`, body);
    if (answer.status !== 200) throw new Error(`upload-url: ${answer.status} ${answer.bytes.toString()}`);
    return answer.json.data as UploadUrlData;
  };
  /** The client's side of the flow: a plain fetch to the URL with the headers it came with. */
  const putBytes = (upload: UploadUrlData, bytes: Buffer | string, headers = upload.headers) =>
    fetch(upload.url, { method: upload.method, headers, body: bytes });
  const complete = (upload: UploadUrlData) => postJson(new URL(upload.complete_url).pathname, { object_uuid: upload.object_uuid });
  const pendingCount = async () =>
    (
      await app.runtime.db.rows<{ n: number }>(
        sql.raw(`select count(*)::int as n from "${schema}".objects where upload_status = 'pending'`),
      )
    )[0]!.n;

  beforeAll(async () => {
    s3 = await startS3Server();
    app = await startTestApp({ ...s3.env, DIRECT_TRANSFER_MAX_BYTES: String(DIRECT_LIMIT) });
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Presigned Site');
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`))[0]!
      .schema_name;
    objects = await createBucket(app, admin, site, { name: 'Uploads' });
  });
  afterAll(async () => {
    await app.close();
    await s3.close();
  });

  it('uploads through a presigned PUT and makes the object only on completion', async () => {
    // Prepare
    const bytes = Buffer.alloc(600, 'r');

    // Act: ask, PUT with a plain HTTP client, look around, complete
    const upload = await askUpload(`${objects}reports/q3.pdf`, {
      size: bytes.length,
      content_type: 'application/pdf',
      metadata: { team: 'ops' },
    });
    const put = await putBytes(upload, bytes);
    const listedBefore = await send('GET', objects);
    const downloadBefore = await send('GET', `${objects}reports/q3.pdf`);
    const completed = await complete(upload);
    const listedAfter = await send('GET', objects);
    const download = await send('GET', `${objects}reports/q3.pdf`);

    // Assess
    expect(upload).toMatchObject({
      file_path: 'reports/q3.pdf',
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf', 'Content-Length': '600' },
      complete_url: expect.stringMatching(/\/objects\/reports\/q3\.pdf\/complete-upload$/),
    });
    expect(new URL(upload.url).origin).toBe(s3.endpoint);
    expect(Date.parse(upload.expires_at)).toBeGreaterThan(Date.now() + 800_000);
    expect(put.status).toBe(200);
    expect(listedBefore.json.data).toEqual([]);
    expect(downloadBefore.status).toBe(404);
    expect(completed.status).toBe(201);
    expect(completed.json).toMatchObject({
      success: true,
      status_code: 201,
      data: { uuid: upload.object_uuid, file_path: 'reports/q3.pdf', size: 600, mimetype: 'application/pdf', metadata: { team: 'ops' } },
    });
    expect(listedAfter.json.data.map((object: { uuid: string }) => object.uuid)).toEqual([upload.object_uuid]);
    expect(download.status).toBe(200);
    expect(download.bytes.equals(bytes)).toBe(true);
  });

  it('redirects a download over the direct limit to a presigned GET, active content as an attachment', async () => {
    // Prepare
    const page = Buffer.from(`<html>${'x'.repeat(3000)}</html>`);
    const upload = await askUpload(`${objects}site/index.html`, { size: page.length, content_type: 'text/html' });
    await putBytes(upload, page);
    expect((await complete(upload)).status).toBe(201);

    // Act
    const answer = await send('GET', `${objects}site/index.html`);
    const location = answer.headers.get('location')!;
    const whole = await fetch(location);
    const part = await fetch(location, { headers: { range: 'bytes=0-5' } });

    // Assess
    expect(answer.status).toBe(302);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.bytes.length).toBe(0);
    expect(new URL(location).origin).toBe(s3.endpoint);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(page)).toBe(true);
    expect(whole.headers.get('content-type')).toBe('text/html');
    expect(whole.headers.get('content-disposition')).toBe(`attachment; filename="index.html"; filename*=UTF-8''index.html`);
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('<html>');
  });

  it('serves objects within the direct limit itself', async () => {
    await send('PUT', `${objects}small.txt`, { body: 'small enough', headers: { 'content-type': 'text/plain' } });
    const answer = await send('GET', `${objects}small.txt`);
    expect(answer.status).toBe(200);
    expect(answer.bytes.toString()).toBe('small enough');
  });

  it('refuses a direct upload over the limit with 413 naming the presigned flow, storing nothing', async () => {
    // Prepare
    const keysBefore = await s3.keys();
    // Act
    const answer = await send('PUT', `${objects}big.bin`, {
      body: Buffer.alloc(DIRECT_LIMIT + 1),
      headers: { 'content-type': 'application/octet-stream' },
    });
    // Assess
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ success: false, status_code: 413, message: expect.stringContaining('upload-url') });
    expect(await s3.keys()).toEqual(keysBefore);
  });

  it('checks the announced size and type before handing out a URL', async () => {
    // Prepare
    const images = await createBucket(app, admin, site, { name: 'Images', allowed_mime_types: ['image/*'], file_size_limit: 5000 });
    const pendingBefore = await pendingCount();
    // Act
    const tooBig = await postJson(`${images}big.png/upload-url`, { size: 5001, content_type: 'image/png' });
    const wrongType = await postJson(`${images}notes.txt/upload-url`, { size: 10, content_type: 'text/plain' });
    const guessedType = await postJson(`${images}notes.txt/upload-url`, { size: 10 });
    const empty = await postJson(`${images}empty.png/upload-url`, { size: 0, content_type: 'image/png' });
    const noSize = await postJson(`${images}x.png/upload-url`, { content_type: 'image/png' });
    const fits = await postJson(`${images}fits.png/upload-url`, { size: 5000 });
    // Assess
    expect(tooBig.status).toBe(400);
    expect(tooBig.json).toMatchObject({ success: false, status_code: 400, message: 'File size exceeds bucket limit' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toContain('image/*');
    expect(guessedType.status).toBe(400);
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe('The submitted file is empty.');
    expect(noSize.status).toBe(400);
    expect(fits.status).toBe(200);
    expect(fits.json.data.headers['Content-Type']).toBe('image/png');
    expect(await pendingCount()).toBe(pendingBefore + 1);
  });

  it('answers 409 until the bytes have arrived, then completes', async () => {
    // Prepare
    const upload = await askUpload(`${objects}later.txt`, { size: 5, content_type: 'text/plain' });
    // Act
    const early = await complete(upload);
    await putBytes(upload, 'later');
    const completed = await complete(upload);
    const again = await complete(upload);
    // Assess
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ success: false, status_code: 409 });
    expect(completed.status).toBe(201);
    expect(again.status).toBe(404);
  });

  it.each([
    ['more bytes than announced', 'text/plain', 'twelve bytes', { size: ['12 bytes arrived but 5 were announced.'] }],
    [
      'another type than announced',
      'image/png',
      'fives',
      { content_type: ['The bytes arrived as "image/png" but "text/plain" was announced.'] },
    ],
  ])('drops the upload, bytes and pending object, when %s arrive', async (_name, sentType, body, errors) => {
    // Prepare: s3rver does not check signatures, so the PUT lands whatever it carries (S3 would refuse it)
    const upload = await askUpload(`${objects}checked.txt`, { size: 5, content_type: 'text/plain' });
    await putBytes(upload, body, { 'Content-Type': sentType });
    const storageKey = (
      await app.runtime.db.rows<{ storage_key: string }>(
        sql.raw(`select storage_key from "${schema}".objects where uuid = '${upload.object_uuid}'`),
      )
    )[0]!.storage_key;
    expect(await s3.keys()).toContain(storageKey);
    // Act
    const refused = await complete(upload);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, status_code: 400, errors });
    expect(await s3.keys()).not.toContain(storageKey);
    expect((await complete(upload)).status).toBe(404);
    expect((await send('GET', `${objects}checked.txt`)).status).toBe(404);
  });

  it('drops an upload whose bytes are not what the announced type says (signature check)', async () => {
    // Prepare: executable bytes behind an announced and signed image/png
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(98, 0x90)]);
    const upload = await askUpload(`${objects}disguised.png`, { size: exe.length, content_type: 'image/png' });
    await putBytes(upload, exe);
    const wildcard = await postJson(`${objects}wild.png/upload-url`, { size: 10, content_type: 'image/*' });
    // Act
    const refused = await complete(upload);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, status_code: 400, detected_mime_type: 'application/x-msdownload' });
    expect((await complete(upload)).status).toBe(404);
    expect((await send('GET', `${objects}disguised.png`)).status).toBe(404);
    expect(wildcard.status).toBe(400);
    expect(wildcard.json.errors).toHaveProperty('content_type');
  });

  it('replaces an existing object through the flow: same uuid, new bytes, old bytes removed', async () => {
    // Prepare
    const original = await send('PUT', `${objects}doc.txt`, { body: 'first version', headers: { 'content-type': 'text/plain' } });
    const originalKey = (
      await app.runtime.db.rows<{ storage_key: string }>(
        sql.raw(`select storage_key from "${schema}".objects where uuid = '${original.json.data.uuid}'`),
      )
    )[0]!.storage_key;
    // Act
    const upload = await askUpload(`${objects}doc.txt`, { size: 14, content_type: 'text/plain' });
    await putBytes(upload, 'second version');
    const duringUpload = await send('GET', `${objects}doc.txt`);
    const completed = await complete(upload);
    const after = await send('GET', `${objects}doc.txt`);
    // Assess
    expect(duringUpload.bytes.toString()).toBe('first version');
    expect(completed.status).toBe(200);
    expect(completed.json.data).toMatchObject({ uuid: original.json.data.uuid, size: 14 });
    expect(after.bytes.toString()).toBe('second version');
    expect(await s3.keys()).not.toContain(originalKey);
    // One row at the path: the object; the pending row gave it its bytes and went.
    const rows = await app.runtime.db.rows<{ n: number }>(
      sql.raw(`select count(*)::int as n from "${schema}".objects where file_path = 'doc.txt'`),
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('sweeps an upload abandoned past its URL lifetime, with its bytes', async () => {
    // Prepare: an upload whose bytes arrived but which was never completed, begun long ago
    const upload = await askUpload(`${objects}abandoned.txt`, { size: 4, content_type: 'text/plain' });
    await putBytes(upload, 'gone');
    const [row] = await app.runtime.db.rows<{ storage_key: string }>(
      sql.raw(
        `update "${schema}".objects set created_at = now() - interval '3 hours' where uuid = '${upload.object_uuid}' returning storage_key`,
      ),
    );
    // Act: the next upload URL asked for in the bucket
    await askUpload(`${objects}fresh.txt`, { size: 5, content_type: 'text/plain' });
    // Assess
    const left = await app.runtime.db.rows<{ n: number }>(
      sql.raw(`select count(*)::int as n from "${schema}".objects where uuid = '${upload.object_uuid}'`),
    );
    expect(left[0]!.n).toBe(0);
    expect(await s3.keys()).not.toContain(row!.storage_key);
  });

  it('lets only signed-in members ask for upload URLs, and only the asker complete them', async () => {
    // Prepare
    const outsider = await siteUser(app, admin, site, 'presign-outsider', []);
    const member = await siteUser(app, admin, site, 'presign-member', ['access_site']);
    const upload = await askUpload(`${objects}mine.txt`, { size: 4, content_type: 'text/plain' });
    await putBytes(upload, 'mine');
    // Act
    const anonymous = await sendBinary(app.url, 'POST', `${objects}x.txt/upload-url`, {
      body: JSON.stringify({ size: 1 }),
      headers: { ...site.tenant, 'content-type': 'application/json' },
    });
    const notMember = await postJson(`${objects}x.txt/upload-url`, { size: 1 }, outsider);
    const otherCompletes = await postJson(new URL(upload.complete_url).pathname, { object_uuid: upload.object_uuid }, member);
    // Assess
    expect(anonymous.status).toBe(401);
    expect(notMember.status).toBe(403);
    expect(otherCompletes.status).toBe(404);
    expect((await complete(upload)).status).toBe(201);
  });
});

describe('presigned transfers on the filesystem', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses upload URLs with 400 provider_operation_not_supported: uploads go through the API', async () => {
    // Prepare
    const admin = await app.adminToken();
    const site = await createStorageSite(app, admin, 'Disk Site');
    const objects = await createBucket(app, admin, site, { name: 'Disk' });
    // Act
    const answer = await sendBinary(app.url, 'POST', `${objects}file.txt/upload-url`, {
      token: admin,
      body: JSON.stringify({ size: 10, content_type: 'text/plain' }),
      headers: { ...site.tenant, 'content-type': 'application/json' },
    });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      success: false,
      status_code: 400,
      code: 'VALIDATION_ERROR',
      provider_error_code: 'provider_operation_not_supported',
    });
  });
});
