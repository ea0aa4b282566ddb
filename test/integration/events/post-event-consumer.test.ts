// The deployed POST-event consumer (its Lambda handler) on SQS batches: partial batch failures,
// and a message delivered twice runs its function once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, SQSEvent } from 'aws-lambda';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '#functions/events/post-event-consumer.ts';
import { createInvocations } from '#shared/events/function-invocations.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createStorageSite, type StorageSite } from '#test/support/storage.ts';

function sqsEvent(bodies: Array<{ id: string; body: unknown }>): SQSEvent {
  return {
    Records: bodies.map(({ id, body }) => ({
      messageId: id,
      receiptHandle: `handle-${id}`,
      body: JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:post-events',
      awsRegion: 'us-east-1',
    })),
  };
}

describe('the POST-event consumer Lambda', () => {
  let app: TestApp;
  let site: StorageSite;
  let schemaName: string;
  let receiver: Server;
  let hooks: string;
  const hits: string[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      response.writeHead(request.url === '/ok' ? 200 : 503).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    const admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Consumer Site');
    schemaName = (
      await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`)
    )[0]!.schema_name;
    for (const [name, path] of [
      ['Works', '/ok'],
      ['Breaks', '/down'],
    ]) {
      const created = await app.request('POST', `/api/apps/${site.app}/functions/`, {
        token: admin,
        headers: site.tenant,
        body: { name, webhook_url: `${hooks}${path}`, timeout_seconds: 5 },
      });
      if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    }
  });
  afterAll(async () => {
    await app.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('reports only the failed message, and runs a duplicated message once', async () => {
    const ids = await app.runtime.db.rows<{ id: number; name: string }>(
      sql`select id, name from ${sql.identifier(schemaName)}.functions order by id`,
    );
    const [works, breaks] = await createInvocations(
      app.runtime.db,
      { schemaName },
      'POST_USER_CREATE',
      ids.map((row) => Number(row.id)),
    );
    const message = (invocationId: string) => ({
      schema_name: schemaName,
      invocation_id: invocationId,
      params: { id: 1, username: 'ada' },
    });

    const first = await handler(
      sqsEvent([
        { id: 'm1', body: message(works!.invocationId) },
        { id: 'm1-again', body: message(works!.invocationId) },
        { id: 'm2', body: message(breaks!.invocationId) },
      ]),
      {} as Context,
    );
    const redelivered = await handler(sqsEvent([{ id: 'm1-later', body: message(works!.invocationId) }]), {} as Context);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }]);
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(hits.filter((path) => path === '/ok')).toHaveLength(1);
    expect(hits.filter((path) => path === '/down')).toHaveLength(1);
  });

  it('drops the messages of a deleted site as done instead of retrying them to the dead-letter queue', async () => {
    // Prepare: an invocation queued, then its site deleted
    const admin = await app.adminToken();
    const doomed = await createStorageSite(app, admin, 'Doomed Site');
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(
      sql`select schema_name from platform.sites where slug = ${doomed.slug}`,
    );
    const created = await app.request('POST', `/api/apps/${doomed.app}/functions/`, {
      token: admin,
      headers: doomed.tenant,
      body: { name: 'Gone', webhook_url: `${hooks}/gone`, timeout_seconds: 5 },
    });
    expect(created.status).toBe(201);
    const [fn] = await app.runtime.db.rows<{ id: number }>(sql`select id from ${sql.identifier(row!.schema_name)}.functions`);
    const [invocation] = await createInvocations(app.runtime.db, { schemaName: row!.schema_name }, 'POST_USER_CREATE', [Number(fn!.id)]);
    expect((await app.request('DELETE', `/api/cloud/sites/${doomed.slug}/`, { token: admin })).status).toBe(204);

    // Act
    const answer = await handler(
      sqsEvent([{ id: 'orphan', body: { schema_name: row!.schema_name, invocation_id: invocation!.invocationId, params: {} } }]),
      {} as Context,
    );

    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    expect(hits).not.toContain('/gone');
  });

  it('reports malformed messages as failed, also when the whole batch failed', async () => {
    const answer = await handler(
      sqsEvent([
        { id: 'bad', body: 'not json' },
        { id: 'worse', body: '{"schema_name": "platform"' },
      ]),
      {} as Context,
    );

    // Powertools runs a batch's records in parallel, so failures are reported in the order they end.
    expect(answer.batchItemFailures).toHaveLength(2);
    expect(answer.batchItemFailures).toEqual(expect.arrayContaining([{ itemIdentifier: 'bad' }, { itemIdentifier: 'worse' }]));
  });
});
