import { request as httpRequest } from 'node:http';
import type { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { configureLogger } from '#shared/logger.ts';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES } from '#shared/http/json-body.ts';
import { createStorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

/** `{"name":"..","extra":[[[...]]]}` with `depth` levels in all (the outer object counts as one). */
function nestedBody(depth: number): string {
  return `{"name":"Deep","extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

interface RawAnswer {
  status: number;
  informational: number[];
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request whose body is written in chunks (chunked when `length` is undefined), as a client
 * that has not read the answer yet. Resolves with the answer, or rejects on a reset connection.
 */
function rawRequest(
  url: string,
  options: { path: string; headers: Record<string, string>; chunks: Buffer[]; waitForContinue?: boolean },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const informational: number[] = [];
    const outgoing = httpRequest({ hostname, port, path: options.path, method: 'POST', headers: options.headers }, (incoming) => {
      const parts: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => parts.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          informational,
          headers: incoming.headers,
          body: Buffer.concat(parts).toString('utf8'),
        }),
      );
      incoming.on('error', reject);
    });
    outgoing.on('information', (info) => informational.push(info.statusCode));
    // The server may close once it answered; what was still being written is of no interest.
    outgoing.on('error', (error) => (outgoing.writableEnded ? undefined : reject(error)));
    const send = () => {
      for (const chunk of options.chunks) outgoing.write(chunk);
      outgoing.end();
    };
    if (options.waitForContinue === true) outgoing.on('continue', send);
    else send();
  });
}

describe('request limits', () => {
  let app: TestApp;
  let admin: string;
  let warnings: MockInstance<Logger['warn']>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    // The platform's logger from here on, its WARN lines observed (and kept off the test output).
    warnings = vi.spyOn(configureLogger('WARN'), 'warn').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    warnings.mockRestore();
    configureLogger('SILENT');
    await app.close();
  });

  it('refuses a JSON body nested 5,000 levels deep with 400 naming the limit', async () => {
    const answer = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: nestedBody(5000) });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 'error', code: 'BAD_REQUEST', max_json_depth: MAX_JSON_DEPTH });
    expect(answer.body.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('takes a body nested exactly to the limit, and brackets inside strings do not count', async () => {
    const atLimit = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: nestedBody(MAX_JSON_DEPTH) });
    const overLimit = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: nestedBody(MAX_JSON_DEPTH + 1) });
    const inString = await app.request('POST', '/api/cloud/organizations/', {
      token: admin,
      body: { name: 'Brackets', description: '['.repeat(10_000) },
    });

    expect(atLimit.body.message ?? '').not.toContain('deeper than');
    expect(atLimit.status).toBeLessThan(500);
    expect(overLimit.status).toBe(400);
    expect(inString.status).toBe(201);
  });

  it('refuses a JSON filter nested past the limit in a query parameter with 400 naming it', async () => {
    const site = await createStorageSite(app, admin, 'Limits Site');
    const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, headers: site.tenant, body });
    await call('POST', `/api/apps/${site.app}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    await call('POST', `/api/apps/${site.app}/datasources/main/datatables/`, {
      name: 'notes',
      json_schema: { fields: [{ name: 's', type: 'string' }] },
    });
    expect((await call('POST', `/api/apps/${site.app}/datatables/notes/materialize/`)).status).toBe(200);
    const data = `/api/apps/${site.app}/datatables/notes/data/`;

    // 100 levels: a URL long enough for a stack overflow is refused by HTTP servers (431) first.
    const deep = await call('DELETE', `${data}?filter=${encodeURIComponent(`{"s":${'['.repeat(100)}${']'.repeat(100)}}`)}`);
    const plain = await call('DELETE', `${data}?filter=${encodeURIComponent('{"s":"x"}')}`);

    expect(deep.status).toBe(400);
    expect(JSON.stringify(deep.body)).toContain('filter');
    expect(plain.status).toBe(200);
  });

  it('answers 413 in the error envelope for a body announced over the limit, without inviting it', async () => {
    const answer = await rawRequest(app.url, {
      path: '/api/cloud/organizations/',
      headers: {
        authorization: `Bearer ${admin}`,
        'content-type': 'application/json',
        'content-length': String(MAX_REQUEST_BODY_BYTES + 1),
        expect: '100-continue',
      },
      chunks: [],
      waitForContinue: true,
    });

    expect(answer.informational).not.toContain(100);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'error', code: 'PAYLOAD_TOO_LARGE' });
    expect(answer.headers['x-request-id']).toBeDefined();
  });

  it('answers 413 to a chunked body that grows past the limit, and logs it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const answer = await rawRequest(app.url, {
      path: '/api/cloud/organizations/',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      chunks: Array.from({ length: 7 }, () => chunk),
    });

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'error', code: 'PAYLOAD_TOO_LARGE' });
    expect(warnings).toHaveBeenCalledWith(
      'request body over the limit',
      expect.objectContaining({ path: '/api/cloud/organizations/', method: 'POST' }),
    );
  });

  it('answers 413 to a body sent whole with a Content-Length over the limit', async () => {
    const body = Buffer.alloc(MAX_REQUEST_BODY_BYTES + 10, 0x20);
    const answer = await rawRequest(app.url, {
      path: '/api/cloud/organizations/',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'content-length': String(body.length) },
      chunks: [body],
    });

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // The server still answers the next request.
    expect((await app.request('GET', '/api/cloud/users/', { token: admin })).status).toBe(200);
  });
});
