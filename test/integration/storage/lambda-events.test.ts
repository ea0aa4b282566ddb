// The same storage handlers invoked as API Gateway would invoke them: the body buffered in the
// event (base64 for binary) and a stream reply collected into the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler } from '#functions/storage/handler.ts';
import { MAX_BUFFERED_REPLY_BYTES } from '#shared/http/body-streams.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, multipart, sendBinary, type StorageSite } from '#test/support/storage.ts';

describe('storage handler invoked with API Gateway events', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const invoke = (
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: Buffer | string; token?: string | null } = {},
  ) =>
    handler(
      gatewayEvent({
        method,
        url,
        headers: {
          host: 'api.example.test',
          ...site.tenant,
          ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? admin}` }),
          ...options.headers,
        },
        body: options.body,
      }),
      lambdaContext('storage'),
    );
  const bodyOf = (result: APIGatewayProxyStructuredResultV2) => Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Lambda Site');
    objects = await createBucket(app, admin, site, { name: 'Lambda', visibility: 'public' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('uploads binary bytes from a base64 event body and downloads them collected into base64', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255]);

    const created = await invoke('PUT', `${objects}bin/data.bin`, { body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    const download = await invoke('GET', `${objects}bin/data.bin`, { token: null });
    const range = await invoke('GET', `${objects}bin/data.bin`, { token: null, headers: { range: 'bytes=3-5' } });

    expect(created.statusCode).toBe(201);
    expect(JSON.parse(created.body!).data).toMatchObject({ size: 9, file_path: 'bin/data.bin' });
    expect(download.statusCode).toBe(200);
    expect(download.isBase64Encoded).toBe(true);
    expect(bodyOf(download).equals(bytes)).toBe(true);
    expect(download.headers).toMatchObject({ 'Content-Length': '9', 'X-Content-Type-Options': 'nosniff', 'Accept-Ranges': 'bytes' });
    expect(range.statusCode).toBe(206);
    expect(bodyOf(range).equals(Buffer.from([250, 251, 252]))).toBe(true);
  });

  it('uploads a text body and a multipart form from the event', async () => {
    const form = multipart([{ name: 'file', filename: 'form.txt', contentType: 'text/plain', data: 'from a form' }]);

    const text = await invoke('PUT', `${objects}text/plain.txt`, { body: 'plain words', headers: { 'content-type': 'text/plain' } });
    const legacy = await invoke('POST', objects, { body: form.body, headers: { 'content-type': form.contentType } });
    const read = await invoke('GET', `${objects}form.txt`, { token: null });

    expect(text.statusCode).toBe(201);
    expect(JSON.parse(text.body!).data.size).toBe(11);
    expect(legacy.statusCode).toBe(201);
    expect(bodyOf(read).toString()).toBe('from a form');
  });

  it('refuses a download larger than a Lambda answer can carry, but serves a range of it', async () => {
    const big = Buffer.alloc(MAX_BUFFERED_REPLY_BYTES + 1, 3);
    // Stored through the dev server: a Lambda request body could not carry it either.
    await sendBinary(app.url, 'PUT', `${objects}big.bin`, { token: admin, body: big, headers: site.tenant });

    const whole = await invoke('GET', `${objects}big.bin`, { token: null });
    const part = await invoke('GET', `${objects}big.bin`, { token: null, headers: { range: 'bytes=0-99' } });

    expect(whole.statusCode).toBe(413);
    expect(JSON.parse(whole.body!)).toMatchObject({ success: false, status_code: 413 });
    expect(part.statusCode).toBe(206);
    expect(bodyOf(part).length).toBe(100);
  });

  it('answers errors in the success-flag envelope, anonymous writes 401', async () => {
    const anonymous = await invoke('PUT', `${objects}x.txt`, { token: null, body: 'x', headers: { 'content-type': 'text/plain' } });
    const traversal = await invoke('GET', `${objects}%2e%2e/x`);

    expect(anonymous.statusCode).toBe(401);
    expect(JSON.parse(anonymous.body!)).toMatchObject({ success: false, status_code: 401 });
    expect(traversal.statusCode).toBe(400);
  });
});
