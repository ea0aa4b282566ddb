// Lambda entry of the POST-event consumer: reads SQS batches and reports partial batch failures
// (Powertools batch), so only the failed messages come back; each message runs its invocation
// once (a duplicate delivery finds it claimed and runs nothing).
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord, SQSBatchResponse } from 'aws-lambda';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { consumePostEvent, type PostEventMessage } from '#shared/events/post-events.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';

const processor = new BatchProcessor(EventType.SQS);

async function recordHandler(record: SQSRecord): Promise<void> {
  const runtime = await getRuntime();
  const message = JSON.parse(record.body) as PostEventMessage;
  const { config } = runtime;
  await consumePostEvent(runtime.db, message, {
    allowPrivate: config.outboundAllowPrivateNetworks,
    secretsKey: () => loadSecretsKey(config),
  });
}

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  // A batch where every message failed is answered the same way (each listed), not thrown: SQS
  // then redelivers exactly those, and a malformed one ends on the dead-letter queue for inspection.
  return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
}
