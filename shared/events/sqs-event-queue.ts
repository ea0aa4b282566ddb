// The deployed POST-event queue: messages go to SQS in batches of ten; the consumer Lambda reads
// them (functions/events/post-event-consumer.ts) and the queue's redrive policy dead-letters a
// message after its third failed receive.
import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { EventQueue, PostEventMessage } from './post-events.ts';

const BATCH = 10;
let client: SQSClient | undefined;

export function sqsEventQueue(queueUrl: string): EventQueue {
  return {
    send: async (messages: readonly PostEventMessage[]) => {
      client ??= new SQSClient({});
      for (let start = 0; start < messages.length; start += BATCH) {
        const batch = messages.slice(start, start + BATCH);
        const sent = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) })),
          }),
        );
        if ((sent.Failed ?? []).length > 0) throw new Error(`SQS refused ${sent.Failed!.length} POST event message(s)`);
      }
    },
  };
}
