// The deployed event path's own code, without AWS: the PRE-event state machine CDK deploys (the
// same ASL file, its runner ARN substituted as CDK does) executed by aws-local-stepfunctions (through
// the project's runner of it) with its Lambda task resolved to the real PRE task handler (functions/events/pre-event-task.ts), and
// the POST publisher sending to SQS through the SQS client (aws-sdk-client-mock). The SQS consumer
// Lambda is driven with SQS batches in post-event-consumer.test.ts.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as preEventTask } from '#functions/events/pre-event-task.ts';
import { PRE_EVENT_ASL } from '#infra/aws/user-events.ts';
import { createInvocations } from '#shared/events/function-invocations.ts';
import { publishPostEvent } from '#shared/events/post-events.ts';
import { sqsEventQueue } from '#shared/events/sqs-event-queue.ts';
import { runLocalStateMachine } from '#shared/workflows/local-state-machine.ts';
import { substituteDefinition } from '#shared/workflows/state-machine.ts';
import { createStorageSite, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const RUNNER_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:tessera-event-runner';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/post-events';

describe('the deployed event path', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let schemaName: string;
  let receiver: Server;
  let hooks: string;
  const hits: string[] = [];

  async function createFunction(name: string, path: string): Promise<number> {
    const created = await app.request('POST', `/api/apps/${site.app}/functions/`, {
      token: admin,
      headers: site.tenant,
      body: { name, webhook_url: `${hooks}${path}`, timeout_seconds: 5 },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    return created.body.data.id as number;
  }

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      response.writeHead(request.url === '/ok' ? 200 : 503).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    app = await startTestApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Deployed Events Site');
    schemaName = (
      await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`)
    )[0]!.schema_name;
  });
  afterAll(async () => {
    await app.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('runs every PRE subscriber through the deployed state machine and its task handler, reporting each outcome', async () => {
    const works = await createFunction('Pre works', '/ok');
    const breaks = await createFunction('Pre breaks', '/down');
    const tasks = await createInvocations(app.runtime.db, { schemaName }, 'PRE_USER_CREATE', [works, breaks]);
    const definition = substituteDefinition(JSON.parse(readFileSync(PRE_EVENT_ASL, 'utf8')), { FunctionRunnerArn: RUNNER_ARN });
    const invoked: unknown[] = [];

    const execution = await runLocalStateMachine(
      definition,
      {
        schema_name: schemaName,
        params: { username: 'ada' },
        budget_ms: 5000,
        tasks: tasks.map((task) => ({ function_id: task.functionId, invocation_id: task.invocationId })),
      },
      {
        handlers: {
          RunFunction: async (input) => {
            invoked.push(input);
            return preEventTask(input);
          },
        },
      },
    );
    const output = execution.output as { results: unknown[] };
    const statuses = await app.runtime.db.rows<{ function_id: number; status: string }>(
      sql`select function_id, status from ${sql.identifier(schemaName)}.function_invocations
        where invocation_id in (${sql.join(
          tasks.map((task) => sql`${task.invocationId}::uuid`),
          sql`, `,
        )}) order by function_id`,
    );

    expect(execution.status).toBe('SUCCEEDED');
    expect(invoked).toEqual(
      tasks.map((task) => ({
        schema_name: schemaName,
        params: { username: 'ada' },
        budget_ms: 5000,
        function_id: task.functionId,
        invocation_id: task.invocationId,
      })),
    );
    expect(output.results).toEqual([
      { function_id: works, ok: true, error: null },
      { function_id: breaks, ok: false, error: expect.stringContaining('503') },
    ]);
    expect(statuses.map((row) => [Number(row.function_id), row.status])).toEqual([
      [works, 'succeeded'],
      [breaks, 'failed'],
    ]);
  });

  it('sends one SQS message per POST subscriber, in batches of ten, naming the site and the invocation', async () => {
    const sqs = mockClient(SQSClient);
    try {
      sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: Array<{ Id: string }> }) => ({
        Successful: input.Entries.map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: '' })),
        Failed: [],
      }));
      const subscribers: number[] = [];
      for (let index = 0; index < 12; index += 1) {
        const id = await createFunction(`Post ${index}`, '/ok');
        const subscribed = await app.request('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', {
          token: admin,
          headers: site.tenant,
          body: { function_id: id },
        });
        if (subscribed.status !== 200) throw new Error(JSON.stringify(subscribed.body));
        subscribers.push(id);
      }
      const params = { id: 7, username: 'grace' };

      const result = await publishPostEvent(app.runtime.db, { schemaName }, 'POST_USER_CREATE', params, sqsEventQueue(QUEUE_URL));
      const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
      const messages = calls.flatMap((input) => input.Entries!.map((entry) => JSON.parse(entry.MessageBody!)));

      expect(calls.map((input) => [input.QueueUrl, input.Entries!.length])).toEqual([
        [QUEUE_URL, 10],
        [QUEUE_URL, 2],
      ]);
      expect(messages).toEqual(
        result.data.task_ids.map((task) => ({ schema_name: schemaName, invocation_id: task.invocation_id, params })),
      );
      expect(result.data.task_ids.map((task) => task.function_id)).toEqual(subscribers);
      expect(result.data.total_subscribers).toBe(12);
      expect(new Set(messages.map((message) => message.invocation_id)).size).toBe(12);
    } finally {
      sqs.restore();
    }
  });

  it('fails the publish when SQS refuses a message, so the caller can log it', async () => {
    const sqs = mockClient(SQSClient);
    try {
      sqs.on(SendMessageBatchCommand).resolves({
        Successful: [],
        Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }],
      });

      await expect(publishPostEvent(app.runtime.db, { schemaName }, 'POST_USER_CREATE', {}, sqsEventQueue(QUEUE_URL))).rejects.toThrow(
        /SQS refused/,
      );
    } finally {
      sqs.restore();
    }
  });
});
