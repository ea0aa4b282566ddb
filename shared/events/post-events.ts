// Publishing a POST event: one message per subscribed function on the event queue, and the
// operation goes on (fire and forget). The consumer runs the invocation the message names; a
// second delivery of the same invocation id runs nothing. Locally the queue lives in this process
// with the behaviour of the deployed SQS queue's redrive policy: a failed message is delivered
// again, up to MAX_RECEIVES times, then set aside on the dead-letter list.
import type { Queryable } from '#shared/db/database.ts';
import { describeError, systemLog } from '#shared/logger.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { runInvocation, type InvocationOptions } from './function-invocations.ts';
import { publishResult, subscriberInvocations, type PublishResult } from './pre-events.ts';

type Site = Pick<Tenant, 'schemaName'>;

/** What travels on the queue: which invocation to run, and for which site. */
export interface PostEventMessage {
  schema_name: string;
  invocation_id: string;
  params: unknown;
}

/** maxReceiveCount of the redrive policy (the deployed queue has the same). */
export const MAX_RECEIVES = 3;

/** The consumer: runs one message's invocation; throws when it failed, so the queue delivers it again. */
export async function consumePostEvent(db: Queryable, message: PostEventMessage, options: InvocationOptions): Promise<void> {
  const outcome = await runInvocation(db, { schemaName: message.schema_name }, message.invocation_id, message.params, {
    ...options,
    maxAttempts: MAX_RECEIVES,
  });
  if (!outcome.ok) throw new Error(outcome.error ?? 'the function failed');
}

export interface EventQueue {
  send(messages: readonly PostEventMessage[]): Promise<void>;
}

/** The in-process queue: deliveries after the current request, retries, a dead-letter list. */
export class LocalEventQueue implements EventQueue {
  readonly deadLetters: PostEventMessage[] = [];
  private pending = new Set<Promise<void>>();

  constructor(
    private readonly consume: (message: PostEventMessage) => Promise<void>,
    private readonly retryDelayMs = 200,
  ) {}

  async send(messages: readonly PostEventMessage[]): Promise<void> {
    for (const message of messages) this.track(this.deliver(message, 1));
  }

  /** Delivers a message again, as SQS may (tests of the consumer's idempotency). */
  redeliver(message: PostEventMessage): Promise<void> {
    return this.track(this.deliver(message, 1));
  }

  /** Settles when every delivery under way has ended (tests, shutdown). */
  async drained(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(delivery: Promise<void>): Promise<void> {
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
    return delivery;
  }

  private async deliver(message: PostEventMessage, receive: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, receive === 1 ? 0 : this.retryDelayMs));
    try {
      await this.consume(message);
    } catch (error) {
      if (receive >= MAX_RECEIVES) {
        this.deadLetters.push(message);
        systemLog.warn('POST event message moved to the dead-letter list', {
          invocation_id: message.invocation_id,
          ...describeError(error),
        });
        return;
      }
      await this.deliver(message, receive + 1);
    }
  }
}

export async function publishPostEvent(
  db: Queryable,
  site: Site,
  event: string,
  params: unknown,
  queue: EventQueue,
): Promise<PublishResult> {
  const { functions, tasks } = await subscriberInvocations(db, site, event);
  if (functions.length === 0) return publishResult(event, functions, tasks);
  await queue.send(tasks.map((task) => ({ schema_name: site.schemaName, invocation_id: task.invocationId, params })));
  return publishResult(event, functions, tasks);
}

/** The queue POST events go to: SQS when its URL is configured (deployed), else this process's. */
export async function eventQueueFor(db: Queryable, queueUrl: string | undefined, options: InvocationOptions): Promise<EventQueue> {
  if (queueUrl === undefined) return localEventQueue(db, options);
  const { sqsEventQueue } = await import('./sqs-event-queue.ts');
  return sqsEventQueue(queueUrl);
}

const localQueues = new WeakMap<Queryable, LocalEventQueue>();

/** This process's queue over `db` (the dev server's, a test app's). */
export function localEventQueue(db: Queryable, options: InvocationOptions): LocalEventQueue {
  let queue = localQueues.get(db);
  if (queue === undefined) {
    queue = new LocalEventQueue((message) => consumePostEvent(db, message, options));
    localQueues.set(db, queue);
  }
  return queue;
}
