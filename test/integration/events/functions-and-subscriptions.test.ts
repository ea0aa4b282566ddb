import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createStorageSite, type StorageSite } from '#test/support/storage.ts';

describe('functions and event subscriptions', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let other: StorageSite;
  const call = (method: string, route: string, body?: unknown, on: StorageSite = site) =>
    app.request(method, route, { token: admin, headers: on.tenant, body });
  const functions = () => `/api/apps/${site.app}/functions/`;

  // Each test makes the functions it reads, named with a number of its own, so the tests pass in any
  // order (--sequence.shuffle).
  let made = 0;
  async function newFunction(): Promise<{ id: number; name: string; slug: string }> {
    const name = `Hook ${++made}`;
    const created = await call('POST', functions(), { name, webhook_url: `https://hooks.example.com/${made}` });
    expect(created.status).toBe(201);
    return { id: created.body.data.id, name, slug: created.body.data.slug };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Events Site');
    other = await createStorageSite(app, admin, 'Other Events Site');
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates a webhook function with defaults and a signing secret', async () => {
    const created = await call('POST', functions(), { name: 'Check signup', webhook_url: 'https://hooks.example.com/signup' });

    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Check signup',
      slug: 'check-signup',
      execution_mode: 'webhook',
      webhook_url: 'https://hooks.example.com/signup',
      timeout_seconds: 300,
      is_active: true,
    });
    expect(created.body.data.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('lists, reads, changes and deletes functions', async () => {
    const before = (await call('GET', functions())).body.total as number;
    await call('POST', functions(), { name: 'Temp', webhook_url: 'https://hooks.example.com/t', timeout_seconds: 5 });
    const listed = await call('GET', functions());
    const patched = await call('PATCH', `${functions()}temp/`, { timeout_seconds: 10, is_active: false });
    const removed = await call('DELETE', `${functions()}temp/`);
    const gone = await call('GET', `${functions()}temp/`);

    expect(listed.body).toMatchObject({ success: true, total: before + 1 });
    expect(patched.body.data).toMatchObject({ timeout_seconds: 10, is_active: false });
    expect(removed.status).toBe(200);
    expect(gone.status).toBe(404);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'not a public address'],
    ['http://[::ffff:7f00:1]/', 'not a public address'],
    ['http://127.1/', 'not a public address'],
    ['ftp://example.com/', 'Send an http or https URL.'],
  ])('refuses the webhook URL %s with 400', async (url, message) => {
    const refused = await call('POST', functions(), { name: 'Bad', webhook_url: url });

    expect(refused.status).toBe(400);
    expect(refused.body.errors.webhook_url[0]).toContain(message);
  });

  it('refuses timeouts over 300 seconds and unknown fields', async () => {
    const long = await call('POST', functions(), { name: 'Long', webhook_url: 'https://hooks.example.com/', timeout_seconds: 301 });
    const extra = await call('POST', functions(), {
      name: 'Extra',
      webhook_url: 'https://hooks.example.com/',
      __proto__: { admin: true },
      runtime: 'node',
    });

    expect(long.status).toBe(400);
    expect(extra.status).toBe(400);
  });

  it('lists the events, and subscribes a function once', async () => {
    const fn = await newFunction();

    const events = await call('GET', '/api/cloud/events/');
    const subscribed = await call('POST', '/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: fn.id });
    const again = await call('POST', '/api/events/PRE_USER_CREATE/subscribe/', { function_id: fn.id });
    const listed = await call('GET', `/api/apps/${site.app}/events/PRE_USER_CREATE/`);

    expect(events.body).toEqual({
      success: true,
      message: 'Events retrieved successfully',
      status_code: 200,
      data: { events: ['PRE_USER_CREATE', 'POST_USER_CREATE'] },
    });
    expect(subscribed.status).toBe(200);
    expect(subscribed.body.data).toMatchObject({
      event: 'PRE_USER_CREATE',
      function: fn.id,
      function_name: fn.name,
      function_slug: fn.slug,
      app_slug: site.app,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'DUPLICATE_ENTRY' });
    expect(listed.body.data).toMatchObject({ event: 'PRE_USER_CREATE', app: { slug: site.app }, total_subscribers: 1 });
    expect(listed.body.data.subscribers[0]).toMatchObject({ function_id: fn.id, function_slug: fn.slug, app_slug: site.app });
    // Unsubscribed again, so no other test finds a subscriber it did not make.
    expect((await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fn.id })).status).toBe(200);
  });

  it('unsubscribes, and refuses unknown events and functions', async () => {
    const fn = await newFunction();
    expect((await call('POST', '/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: fn.id })).status).toBe(200);

    const unknownEvent = await call('POST', '/api/cloud/events/POST_ORDER_CREATE/subscribe/', { function_id: fn.id });
    const unknownFunction = await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: 999999 });
    const removed = await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fn.id });
    const twice = await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fn.id });

    expect(unknownEvent.status).toBe(404);
    expect(unknownFunction.status).toBe(400);
    expect(removed.body).toMatchObject({ success: true, data: {} });
    expect(twice.status).toBe(404);
  });

  it("cannot subscribe or read another site's function", async () => {
    const fn = await newFunction();

    const subscribed = await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: fn.id }, other);
    const read = await call('GET', `/api/apps/${site.app}/functions/${fn.slug}/`, undefined, other);

    expect(subscribed.status).toBe(400);
    expect(read.status).toBe(404);
  });

  it('lists invocation records of a function (none yet)', async () => {
    const fn = await newFunction();
    const invocations = await call('GET', `${functions()}${fn.slug}/invocations/`);

    expect(invocations.body).toMatchObject({ success: true, total: 0, data: [] });
  });
});
