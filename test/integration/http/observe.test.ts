// Tracing and metrics in the HTTP chain: deployed (inside Lambda, with the metrics namespace CDK
// sets) each request opens a handler subsegment in the invocation's X-Ray trace, sent to the daemon
// address over UDP as in Lambda, and flushes CloudWatch EMF metrics (cold start, requests, 5xx) to
// stdout; outside Lambda the middleware has no hooks at all.
import { createSocket, type Socket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { loadConfig } from '#shared/config.ts';
import { type ApiHandler, createHttpHandler } from '#shared/http/http-handler.ts';
import { observabilityEnabled, observeMiddleware } from '#shared/http/middleware/observe.ts';
import { defineRoute } from '#shared/http/route.ts';
import { createRuntime, installRuntime } from '#shared/runtime/runtime.ts';
import { GENEROUS_RATE_LIMITS } from '#test/support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '#test/support/test-database.ts';

const base = { access: 'public', host: 'any', envelope: 'bare' } as const;
const routes = [
  defineRoute({ ...base, method: 'GET', path: '/t/ok', summary: 'ok', handler: async () => 'ok' }),
  defineRoute({
    ...base,
    method: 'GET',
    path: '/t/boom',
    summary: 'fails',
    handler: async () => {
      throw new Error('broken');
    },
  }),
];

const LAMBDA_ENV = {
  AWS_LAMBDA_FUNCTION_NAME: 'tessera-observe-test',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  LAMBDA_TASK_ROOT: '/var/task',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  _HANDLER: 'index.handler',
  POWERTOOLS_SERVICE_NAME: 'tessera-observe',
  POWERTOOLS_METRICS_NAMESPACE: 'TesseraTest',
};

describe('tracing and metrics', () => {
  let database: TestDatabase;
  let dataDir: string;
  let daemon: Socket;
  const segments: string[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    daemon = createSocket('udp4');
    daemon.on('message', (message) => segments.push(message.toString('utf8')));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    Object.assign(process.env, LAMBDA_ENV, { AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}` });
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-observe-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'SILENT', REQUEST_LOG: 'false', ...GENEROUS_RATE_LIMITS });
    installRuntime(await createRuntime(config, { db: database.db }));
  });
  afterAll(async () => {
    process.env = saved;
    daemon.close();
    await database.dispose();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('does nothing outside Lambda or without the namespace our CDK sets', () => {
    expect(observabilityEnabled({})).toBe(false);
    expect(observabilityEnabled({ AWS_LAMBDA_FUNCTION_NAME: 'x' })).toBe(false);
    const { AWS_LAMBDA_FUNCTION_NAME: _name, ...local } = LAMBDA_ENV;
    expect(observabilityEnabled(local)).toBe(false);
    expect(observabilityEnabled(LAMBDA_ENV)).toBe(true);
  });

  it('adds no middleware to the local chain', () => {
    const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    try {
      expect(observeMiddleware('local')).toEqual([]);
    } finally {
      process.env.AWS_LAMBDA_FUNCTION_NAME = name;
    }
  });

  it('traces each request and flushes request and 5xx metrics of the group', async () => {
    const handler: ApiHandler = createHttpHandler('observed', routes).handler;
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const call = async (url: string, traceId: string) => {
      process.env._X_AMZN_TRACE_ID = `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`;
      return handler(gatewayEvent({ method: 'GET', url, headers: { host: 'api.example.test' } }), lambdaContext('observed'));
    };
    try {
      expect((await call('/t/ok', '1-6740a1b2-000000000000000000000001')).statusCode).toBe(200);
      expect((await call('/t/boom', '1-6740a1b2-000000000000000000000002')).statusCode).toBe(500);
    } finally {
      write.mockRestore();
    }

    const emf = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Namespace: string }> } });
    const requests = emf.filter((entry) => entry.Requests !== undefined);
    expect(requests).toHaveLength(2);
    for (const entry of requests) {
      expect(entry._aws.CloudWatchMetrics[0]!.Namespace).toBe('TesseraTest');
      expect(entry).toMatchObject({ group: 'observed', service: 'tessera-observe', Requests: 1 });
    }
    expect(requests.map((entry) => entry.ServerErrors)).toEqual([undefined, 1]);
    expect(emf.some((entry) => entry.ColdStart === 1)).toBe(true);

    await vi.waitFor(() => expect(segments.length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    const documents = segments.map((message) => JSON.parse(message.slice(message.indexOf('\n') + 1)) as Record<string, unknown>);
    const handlerSegments = documents.filter((document) => document.name === '## index.handler');
    expect(handlerSegments.map((document) => document.trace_id).sort()).toEqual([
      '1-6740a1b2-000000000000000000000001',
      '1-6740a1b2-000000000000000000000002',
    ]);
    expect(handlerSegments[0]).toMatchObject({ annotations: { ColdStart: true, Service: 'tessera-observe' } });
    // Responses are not copied into traces.
    expect(JSON.stringify(handlerSegments)).not.toContain('"ok"');
  });
});
