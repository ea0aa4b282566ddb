// Uploads a client breaks off or stops sending, through the dev server: the client's doing, so a
// 400 (logged at WARN), never the 503 of a lost database connection or of an overloaded platform.
import { request as httpRequest } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mapDatabaseError } from '#shared/db/database-errors.ts';
import { RequestBodyBrokenError } from '#shared/http/body-streams.ts';
import { BODY_IDLE_TIMEOUT_MS } from '#infra/local/dev-server.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, siteSender, storedFileCount, type StorageSite } from '#test/support/storage.ts';

/** Starts an upload announcing `announced` bytes, sends `sent` of them, then does `then`; answers status and body if any. */
function partialUpload(
  app: TestApp,
  path: string,
  headers: Record<string, string>,
  announced: number,
  sent: number,
  then: 'close' | 'wait',
): Promise<{ status: number; body: string } | 'closed'> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        hostname,
        port,
        path,
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(announced) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
          outgoing.destroy();
        });
      },
    );
    outgoing.on('error', () => resolve('closed'));
    outgoing.write(Buffer.alloc(sent, 1), () => {
      if (then === 'close') setTimeout(() => outgoing.destroy(), 200);
    });
  });
}

describe('broken-off uploads', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Broken Site');
    objects = await createBucket(app, admin, site, { name: 'Uploads' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('keeps a lost database connection a 503 and a broken request body a 400', () => {
    const databaseReset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const clientReset = new RequestBodyBrokenError('aborted', 'ECONNRESET');
    const wrapped = new Error('upload failed', { cause: clientReset });

    expect(mapDatabaseError(databaseReset)).toMatchObject({ status: 503 });
    expect(mapDatabaseError(clientReset)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(mapDatabaseError(wrapped)).toBe(wrapped);
  });

  it('answers an upload the client broke off as its own failure and stores nothing', async () => {
    const before = await storedFileCount(app);
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const error = vi.spyOn(Logger.prototype, 'error');

    const outcome = await partialUpload(
      app,
      `${objects}broken.bin`,
      { ...site.tenant, authorization: `Bearer ${admin}` },
      5_000_000,
      2_000_000,
      'close',
    );
    // The server finishes after the socket is gone: give it a moment, then look.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const warned = warn.mock.calls.map((call) => call[0]);
    const failed = error.mock.calls.map((call) => call[0]);
    warn.mockRestore();
    error.mockRestore();

    expect(outcome).toBe('closed');
    expect(failed).toEqual([]);
    expect(warned).toContain('request body broken off by the client');
    expect((await send('GET', `${objects}broken.bin?metadata=true`)).status).toBe(404);
    expect(await storedFileCount(app)).toBe(before);
  });

  it(
    'answers a stalled upload with 400 before the request runs out of time, not a 503',
    async () => {
      const started = Date.now();

      const outcome = await partialUpload(
        app,
        `${objects}stalled.bin`,
        { ...site.tenant, authorization: `Bearer ${admin}` },
        5_000,
        1_000,
        'wait',
      );

      expect(outcome).not.toBe('closed');
      const { status, body } = outcome as { status: number; body: string };
      expect(status).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ success: false, status_code: 400, code: 'BAD_REQUEST' });
      expect(Date.now() - started).toBeLessThan(BODY_IDLE_TIMEOUT_MS + 5_000);
      expect((await send('GET', `${objects}stalled.bin?metadata=true`)).status).toBe(404);
    },
    BODY_IDLE_TIMEOUT_MS + 20_000,
  );
});
