import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '#shared/config.ts';
import { ConflictError } from '#shared/errors.ts';
import { createHttpHandler, type ApiHandler } from '#shared/http/http-handler.ts';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES } from '#shared/http/json-body.ts';
import { defineRoute } from '#shared/http/route.ts';
import { createRuntime, installRuntime } from '#shared/runtime/runtime.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { createTestDatabase, type TestDatabase } from '#test/support/test-database.ts';
import { GENEROUS_RATE_LIMITS } from '#test/support/test-app.ts';

const base = { access: 'public', host: 'any', envelope: 'bare' } as const;
const routes = [
  defineRoute({
    ...base,
    method: 'GET',
    path: '/t/boom',
    summary: 'fails',
    handler: async () => {
      throw new Error('connection string postgres://secret@db');
    },
  }),
  defineRoute({
    ...base,
    method: 'GET',
    path: '/t/conflict',
    summary: 'conflict',
    errorStyle: 'success-flag',
    handler: async () => {
      throw new ConflictError('Already there', { extras: { active_users: 3 } });
    },
  }),
  defineRoute({
    ...base,
    method: 'POST',
    path: '/t/echo/{id}',
    summary: 'echo',
    params: () => z.object({ id: z.string().regex(/^\d+$/) }),
    query: () => z.object({ q: z.string().optional() }),
    body: () => z.object({ name: z.string() }),
    handler: async (_ctx, input) => input,
  }),
  defineRoute({ ...base, method: 'GET', path: '/t/private', summary: 'needs a user', access: 'user', handler: async () => 'never' }),
];

describe('HTTP chain', () => {
  let database: TestDatabase;
  let dataDir: string;
  let handler: ApiHandler;
  const call = (method: string, url: string, options: { headers?: Record<string, string>; body?: string } = {}) =>
    handler(
      gatewayEvent({ method, url, headers: { host: 'api.example.test', ...options.headers }, body: options.body }),
      lambdaContext('test'),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-chain-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'SILENT',
      REQUEST_LOG: 'false',
      CORS_ORIGINS: 'https://app.example.test',
      ...GENEROUS_RATE_LIMITS,
    });
    installRuntime(await createRuntime(config, { db: database.db }));
    handler = createHttpHandler('test', routes).handler;
  });
  afterAll(async () => {
    await database.dispose();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('turns an unexpected error into a plain 500 without internals', async () => {
    const result = await call('GET', '/t/boom');
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body!)).toEqual({ status: 'error', code: 'INTERNAL_ERROR', message: 'Internal server error' });
    expect(result.body).not.toContain('secret');
  });

  it('renders errors in the route area style with the error status and extras', async () => {
    const result = await call('GET', '/t/conflict');
    expect(result.statusCode).toBe(409);
    expect(JSON.parse(result.body!)).toEqual({
      success: false,
      message: 'Already there',
      status_code: 409,
      code: 'CONFLICT',
      active_users: 3,
    });
  });

  it('parses path, query and body into the typed input', async () => {
    const result = await call('POST', '/t/echo/42?q=hi', { headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body!)).toEqual({ params: { id: '42' }, query: { q: 'hi' }, body: { name: 'x' } });
  });

  it('reports bad params and body fields together with their names', async () => {
    const params = await call('POST', '/t/echo/abc', { body: '{"name":"x"}' });
    expect(JSON.parse(params.body!).errors).toHaveProperty('id');
    const body = await call('POST', '/t/echo/1', { body: '{"name":7}' });
    expect(JSON.parse(body.body!).errors).toHaveProperty('name');
  });

  it('refuses a body that is not JSON with 400', async () => {
    const result = await call('POST', '/t/echo/1', { headers: { 'content-type': 'text/plain' }, body: 'name=x' });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body!).code).toBe('BAD_REQUEST');
  });

  it('puts a request id on every answer, errors included', async () => {
    const ok = await call('POST', '/t/echo/1', { body: '{"name":"x"}' });
    const failed = await call('GET', '/t/boom');
    const missing = await call('GET', '/t/nowhere');
    for (const result of [ok, failed, missing]) {
      expect(result.headers?.['X-Request-Id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body!)).toMatchObject({ code: 'NOT_FOUND', detail: 'Not found.' });
  });

  it('adds CORS headers for allowed origins, on errors too, and none for others', async () => {
    const allowed = await call('GET', '/t/private', { headers: { origin: 'https://app.example.test' } });
    expect(allowed.statusCode).toBe(401);
    expect(allowed.headers?.['Access-Control-Allow-Origin']).toBe('https://app.example.test');
    const other = await call('GET', '/t/private', { headers: { origin: 'https://evil.example' } });
    expect(other.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
  });

  it('answers a preflight without running the route', async () => {
    const result = await call('OPTIONS', '/t/private', {
      headers: { origin: 'https://app.example.test', 'access-control-request-method': 'DELETE' },
    });
    expect(result.statusCode).toBe(204);
    expect(result.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example.test',
      'Access-Control-Allow-Headers': expect.stringContaining('Authorization'),
    });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const result = await call('DELETE', '/t/boom');
    expect(result.statusCode).toBe(405);
    expect(result.headers?.Allow).toBe('GET, HEAD, OPTIONS');
  });

  it('refuses JSON nested past the limit before parsing, in Lambda as on the dev server', async () => {
    const deep = `{"name":"x","extra":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const atLimit = `{"name":"x","extra":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;

    const refused = await call('POST', '/t/echo/1', { body: deep });
    const accepted = await call('POST', '/t/echo/1', { body: atLimit });

    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body!)).toMatchObject({ code: 'BAD_REQUEST', max_json_depth: MAX_JSON_DEPTH });
    expect(accepted.statusCode).toBe(200);
  });

  it('answers 413 for a body over the limit, measured or announced', async () => {
    const big = await call('POST', '/t/echo/1', { body: `{"name":"${'x'.repeat(MAX_REQUEST_BODY_BYTES)}"}` });
    const announced = await call('POST', '/t/echo/1', { headers: { 'content-length': String(MAX_REQUEST_BODY_BYTES + 1) } });

    for (const result of [big, announced]) {
      expect(result.statusCode).toBe(413);
      expect(JSON.parse(result.body!)).toMatchObject({
        status: 'error',
        code: 'PAYLOAD_TOO_LARGE',
        max_body_bytes: MAX_REQUEST_BODY_BYTES,
      });
    }
  });
});
