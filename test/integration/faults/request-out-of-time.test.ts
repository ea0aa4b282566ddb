// A request that runs out of the function's time: under overload (1,000 connections queued for a
// pool of 10) an upload waited past the 29 s budget, and middy's own TimeoutError made it a 500
// INTERNAL_ERROR. Forced here without load: the storage function is invoked as the dev server
// invokes it, with a time budget shorter than middy's answer margin, and an upload whose bytes have
// not arrived yet, so the handler is still waiting when the time is up. The answer is 503 with
// Retry-After in the route's envelope; once the body breaks off, no object is left at the path.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { openStreamingChannel } from '#shared/http/body-streams.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { createBucket, createStorageSite, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('a request out of time', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  let storage: ApiHandler;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Out of time');
    objects = await createBucket(app, admin, site, { name: 'Slow' });
    storage = await endpointGroups.find((group) => group.name === 'storage')!.loadHandler();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 503 with Retry-After, not 500, when the upload is still waiting as the time runs out', async () => {
    // Prepare: an upload whose bytes are still on their way, in a function with no time to spare
    const body = new PassThrough();
    // As the dev server's body streams do (infra/local/dev-server.ts): once the handler has given up
    // on the body, nobody reads it, and its error must not surface as an uncaught exception.
    body.on('error', () => undefined);
    const event = gatewayEvent({
      method: 'PUT',
      url: `${objects}late/file.txt`,
      headers: {
        host: 'localhost',
        authorization: `Bearer ${admin}`,
        'content-type': 'text/plain',
        'content-length': '11',
        ...site.tenant,
      },
    });
    openStreamingChannel(event, body);
    // Act
    const answer = await storage(event, lambdaContext('storage', 1));
    body.destroy(new Error('The client broke off the request body'));
    const afterwards = await app.request('GET', `${objects}late/file.txt`, { token: admin, headers: site.tenant });
    // Assess
    expect(answer.statusCode).toBe(503);
    expect(answer.headers).toMatchObject({ 'Retry-After': '5' });
    expect(JSON.parse(answer.body!)).toMatchObject({ success: false, status_code: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(afterwards.status).toBe(404);
  });
});
