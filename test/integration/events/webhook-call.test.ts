// The webhook executor against a real receiver on loopback (allowed as in tests), and the address
// guard with private networks refused, as deployed.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callWebhook, type Resolve } from '#shared/events/webhook-call.ts';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const payload = { event: 'PRE_USER_CREATE', params: { username: 'ada' }, invocation_id: '7d7e4e36-0d1e-4a57-9a52-3b2f3c1a0b11' };
const secret = 'whsec_test';

describe('webhook calls', () => {
  let server: Server;
  let base: string;
  const received: Received[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
        if (request.url === '/ok') response.writeHead(204).end();
        else if (request.url === '/fail') response.writeHead(500).end('no');
        else if (request.url === '/redirect') response.writeHead(302, { location: `${base}/ok` }).end();
        else if (request.url === '/metadata-redirect')
          response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        else if (request.url === '/huge') response.writeHead(200).end(Buffer.alloc(200 * 1024));
        else if (request.url === '/slow') setTimeout(() => response.writeHead(200).end(), 3000);
        else response.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const loopback = { allowPrivate: true };
  const call = (path: string, timeoutMs = 5000) => callWebhook({ url: `${base}${path}`, secret, timeoutMs }, payload, loopback);

  it('POSTs the event, its params and the invocation id, signed over the timestamp and body', async () => {
    const outcome = await call('/ok');
    const request = received.find((entry) => entry.path === '/ok')!;
    const timestamp = request.headers['x-tessera-timestamp'] as string;
    const expected = createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex');

    expect(outcome).toEqual({ ok: true, status: 204 });
    expect(JSON.parse(request.body)).toEqual(payload);
    expect(request.headers['x-tessera-signature']).toBe(`t=${timestamp},v1=${expected}`);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('fails on a non-2xx answer, an answer over the size cap, and a timeout', async () => {
    const failed = await call('/fail');
    const huge = await call('/huge');
    const slow = await call('/slow', 300);

    expect(failed).toMatchObject({ ok: false, status: 500, error: 'the webhook answered HTTP 500' });
    expect(huge).toMatchObject({ ok: false, error: 'the answer is larger than 65536 bytes' });
    expect(slow).toMatchObject({ ok: false, error: 'the webhook did not answer within 300 ms' });
  });

  it('never follows a redirect, not even to the metadata service', async () => {
    const hitsBefore = received.filter((entry) => entry.path === '/ok').length;
    const redirected = await call('/redirect');
    const toMetadata = await call('/metadata-redirect');

    expect(redirected).toMatchObject({ ok: false, status: 302 });
    expect(redirected.error).toContain('not followed');
    expect(toMetadata).toMatchObject({ ok: false, status: 307 });
    expect(received.filter((entry) => entry.path === '/ok').length).toBe(hitsBefore);
  });

  describe('with private networks refused (as deployed)', () => {
    const refused = { allowPrivate: false };
    const tenDotResolver: Resolve = (_hostname, callback) => callback(null, [{ address: '10.0.0.1', family: 4 }]);

    it.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/',
      'http://10.1.2.3/',
      'http://localhost/',
    ])('refuses %s', async (url) => {
      const outcome = await callWebhook({ url, secret, timeoutMs: 2000 }, payload, refused);

      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatch(/not a public address|may not reach/);
    });

    it('refuses a name that resolves to 10.0.0.1, checked at connect time', async () => {
      const outcome = await callWebhook({ url: 'http://hooks.example.test/', secret, timeoutMs: 2000 }, payload, {
        ...refused,
        resolve: tenDotResolver,
      });

      expect(outcome).toEqual({ ok: false, error: '"hooks.example.test" resolves to 10.0.0.1, which webhooks may not reach' });
    });

    it('refuses our own loopback receiver too, and other schemes', async () => {
      const loopbackReceiver = await callWebhook({ url: `${base}/ok`, secret, timeoutMs: 2000 }, payload, refused);
      const file = await callWebhook({ url: 'file:///etc/passwd', secret, timeoutMs: 2000 }, payload, refused);

      expect(loopbackReceiver.ok).toBe(false);
      expect(file).toEqual({ ok: false, error: 'Webhook URLs use http or https, not file:' });
    });
  });
});
