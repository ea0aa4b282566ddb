// User creation through a site fires PRE_USER_CREATE (blocking, through the PRE-event state machine)
// and POST_USER_CREATE (queued) to the site's subscribed webhook functions, here a receiver on loopback.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { localEventQueue } from '#shared/events/post-events.ts';
import { sealLegacySigningSecrets } from '#shared/events/seal-legacy-signing-secrets.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createStorageSite, type StorageSite } from '#test/support/storage.ts';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { event: string; params: Record<string, unknown>; invocation_id: string };
}

describe('user events', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let receiver: Server;
  let hooks: string;
  const hits: Hit[] = [];
  const hitsOf = (path: string) => hits.filter((hit) => hit.path === path);
  const call = (method: string, route: string, body?: unknown, headers = site.tenant) =>
    app.request(method, route, { token: admin, headers, body });

  async function subscribedFunction(name: string, path: string, event: string, timeoutSeconds = 5): Promise<number> {
    return (await subscribedFunctionRecord(name, path, event, timeoutSeconds)).id;
  }

  async function subscribedFunctionRecord(
    name: string,
    path: string,
    event: string,
    timeoutSeconds = 5,
  ): Promise<{ id: number; slug: string; signing_secret: string }> {
    const created = await call('POST', `/api/apps/${site.app}/functions/`, {
      name,
      webhook_url: `${hooks}${path}`,
      timeout_seconds: timeoutSeconds,
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    const subscribed = await call('POST', `/api/cloud/events/${event}/subscribe/`, { function_id: created.body.data.id });
    if (subscribed.status !== 200) throw new Error(JSON.stringify(subscribed.body));
    return created.body.data;
  }

  async function userExists(username: string): Promise<boolean> {
    const rows = await app.runtime.db.rows(sql`select 1 from platform.users where username = ${username}`);
    return rows.length > 0;
  }

  const newUser = (username: string, headers = site.tenant) =>
    call(
      'POST',
      '/api/cloud/users/',
      { username, email: `${username}@example.com`, password: 'a-Strong-password-42!', first_name: 'Ada' },
      headers,
    );

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        hits.push({ path: request.url ?? '', headers: request.headers, raw, body: JSON.parse(raw || '{}') });
        if (request.url?.startsWith('/ok')) response.writeHead(200).end('{}');
        else if (request.url === '/slow') setTimeout(() => response.writeHead(200).end(), 4000);
        else response.writeHead(500).end('refused');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'User Events Site');
  });
  afterAll(async () => {
    await localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) }).drained();
    await app.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('runs a PRE_USER_CREATE subscriber with the validated data (no password) before saving the user', async () => {
    const fnId = await subscribedFunction('Approve', '/ok-pre', 'PRE_USER_CREATE');

    const created = await newUser('ada');
    const invocations = await call('GET', `/api/apps/${site.app}/functions/approve/invocations/`);

    expect(created.status).toBe(201);
    expect(hitsOf('/ok-pre')).toHaveLength(1);
    expect(hitsOf('/ok-pre')[0]!.body).toMatchObject({
      event: 'PRE_USER_CREATE',
      params: { username: 'ada', email: 'ada@example.com', first_name: 'Ada' },
    });
    expect(JSON.stringify(hitsOf('/ok-pre')[0]!.body)).not.toContain('a-Strong-password-42!');
    expect(invocations.body.data).toEqual([
      expect.objectContaining({
        event: 'PRE_USER_CREATE',
        status: 'succeeded',
        error: null,
        invocation_id: hitsOf('/ok-pre')[0]!.body.invocation_id,
      }),
    ]);
    await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fnId });
  });

  it('aborts the user creation when a PRE subscriber fails, naming the function; no user row exists', async () => {
    const fnId = await subscribedFunction('Gatekeeper', '/refuse', 'PRE_USER_CREATE');

    const refused = await newUser('mallory');

    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', function: 'Gatekeeper' });
    expect(refused.body.message).toContain('"Gatekeeper"');
    expect(await userExists('mallory')).toBe(false);
    await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fnId });
  });

  it('aborts the user creation when a PRE subscriber runs past its time; no user row exists', async () => {
    const fnId = await subscribedFunction('Sleepy', '/slow', 'PRE_USER_CREATE', 1);

    const refused = await newUser('trudy');

    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('did not answer within 1000 ms');
    expect(await userExists('trudy')).toBe(false);
    await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fnId });
  });

  it('queues POST_USER_CREATE with the saved user; a second delivery of the message runs nothing', async () => {
    await subscribedFunction('Welcome', '/ok-post', 'POST_USER_CREATE');
    const queue = localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) });

    const created = await newUser('grace');
    await queue.drained();
    const [hit] = hitsOf('/ok-post');
    await queue.redeliver({
      schema_name: (
        await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`)
      )[0]!.schema_name,
      invocation_id: hit!.body.invocation_id,
      params: {},
    });

    expect(created.status).toBe(201);
    expect(hit!.body).toMatchObject({ event: 'POST_USER_CREATE', params: { id: created.body.id, username: 'grace' } });
    expect(hitsOf('/ok-post')).toHaveLength(1);
  });

  it('retries a failing POST subscriber, then dead-letters it; the user is created all the same', async () => {
    await subscribedFunction('Flaky', '/post-fails', 'POST_USER_CREATE');
    const queue = localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) });

    const created = await newUser('linus');
    await queue.drained();
    const invocations = await call('GET', `/api/apps/${site.app}/functions/flaky/invocations/`);

    expect(created.status).toBe(201);
    expect(hitsOf('/post-fails')).toHaveLength(3);
    expect(queue.deadLetters.map((message) => message.invocation_id)).toContain(invocations.body.data[0].invocation_id);
    expect(invocations.body.data[0]).toMatchObject({ status: 'failed', error: 'the webhook answered HTTP 500' });
  });

  it('keeps the signing secret sealed in the database, and signs each call with the secret the owner reads', async () => {
    const fn = await subscribedFunctionRecord('Sealed', '/ok-sealed', 'PRE_USER_CREATE');
    const schema = (
      await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`)
    )[0]!.schema_name;
    const [stored] = await app.runtime.db.rows<{ signing_secret: string; sealed: string }>(
      sql`select signing_secret, signing_secret_sealed::text as sealed from ${sql.identifier(schema)}.functions where id = ${fn.id}`,
    );

    const created = await newUser('sealed-user');
    await localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) }).drained();
    const hit = hitsOf('/ok-sealed')[0]!;
    const timestamp = hit.headers['x-tessera-timestamp'] as string;
    const expected = createHmac('sha256', fn.signing_secret).update(`${timestamp}.${hit.raw}`).digest('hex');

    expect(stored!.signing_secret).toBe('');
    expect(stored!.sealed).not.toContain(fn.signing_secret);
    expect(JSON.parse(stored!.sealed)).toEqual({ iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String) });
    expect(created.status).toBe(201);
    expect(hit.headers['x-tessera-signature']).toBe(`t=${timestamp},v1=${expected}`);
    await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fn.id });
  });

  it('seals a secret stored in plain text before sealing, and the function still reads and signs with it', async () => {
    const fn = await subscribedFunctionRecord('Legacy', '/ok-legacy', 'PRE_USER_CREATE');
    const schema = (
      await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`)
    )[0]!.schema_name;
    const table = sql`${sql.identifier(schema)}.functions`;
    const legacySecret = 'whsec_written-before-secrets-were-sealed';
    // A row as tenant migration 16 finds it: the secret in plain text, nothing sealed.
    await app.runtime.db.run(sql`update ${table} set signing_secret = ${legacySecret}, signing_secret_sealed = null where id = ${fn.id}`);
    const readBefore = await call('GET', `/api/apps/${site.app}/functions/${fn.slug}/`);

    const sealedCount = await sealLegacySigningSecrets(app.runtime.db, () => loadSecretsKey(app.runtime.config));
    const [stored] = await app.runtime.db.rows<{ signing_secret: string; sealed: string | null }>(
      sql`select signing_secret, signing_secret_sealed::text as sealed from ${table} where id = ${fn.id}`,
    );
    const readAfter = await call('GET', `/api/apps/${site.app}/functions/${fn.slug}/`);
    await newUser('legacy-user');
    await localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) }).drained();
    const hit = hitsOf('/ok-legacy')[0]!;
    const timestamp = hit.headers['x-tessera-timestamp'] as string;
    const expected = createHmac('sha256', legacySecret).update(`${timestamp}.${hit.raw}`).digest('hex');

    expect(readBefore.body.data.signing_secret).toBe(legacySecret);
    expect(sealedCount).toBe(1);
    expect(stored!.signing_secret).toBe('');
    expect(stored!.sealed).not.toBeNull();
    expect(stored!.sealed).not.toContain(legacySecret);
    expect(readAfter.body.data.signing_secret).toBe(legacySecret);
    expect(hit.headers['x-tessera-signature']).toBe(`t=${timestamp},v1=${expected}`);
    expect(await sealLegacySigningSecrets(app.runtime.db, () => loadSecretsKey(app.runtime.config))).toBe(0);
    await call('POST', '/api/cloud/events/PRE_USER_CREATE/unsubscribe/', { function_id: fn.id });
  });

  it('fires no tenant subscribers for a user created on the platform host', async () => {
    const before = hits.length;

    const created = await newUser('platform-only', {});
    await localEventQueue(app.runtime.db, { allowPrivate: true, secretsKey: () => loadSecretsKey(app.runtime.config) }).drained();

    expect(created.status).toBe(201);
    expect(hits.length).toBe(before);
  });
});
