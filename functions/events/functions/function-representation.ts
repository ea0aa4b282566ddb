// How functions and their invocations look in answers (DECISIONS: Events and functions).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { InvocationRow } from './function-repository.ts';
import type { OpenedFunction } from './function-service.ts';

/** The wire shape of functionRecord, for the OpenAPI document and the test-time response check. */
export const functionSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      slug: z.string(),
      app: z.number().int(),
      app_slug: z.string(),
      execution_mode: z.string(),
      webhook_url: z.string(),
      signing_secret: z.string().nullable().meta({
        description: 'Verifies the X-Tessera-Signature of each call; null for callers who may not manage functions',
      }),
      timeout_seconds: z.number().int(),
      is_active: z.boolean(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Function' }),
);

/** The wire shape of invocationRecord. */
export const invocationSchema = lazySchema(() =>
  z
    .strictObject({
      invocation_id: z.string(),
      task_id: z.string(),
      event: z.string(),
      status: z.string(),
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      error: z.string().nullable(),
    })
    .meta({ id: 'FunctionInvocation' }),
);

/** What a delete answers: no data. */
export const noDataSchema = lazySchema(() => z.strictObject({}));

export function functionRecord(fn: OpenedFunction) {
  return {
    id: fn.id,
    name: fn.name,
    slug: fn.slug,
    app: fn.appId,
    app_slug: fn.appSlug,
    execution_mode: fn.executionMode,
    webhook_url: fn.webhookUrl,
    // The receiver needs it to verify the X-Tessera-Signature of each call; null unless the caller
    // may manage functions (function-access.ts).
    signing_secret: fn.signingSecret,
    timeout_seconds: fn.timeoutSeconds,
    is_active: fn.isActive,
    created_at: fn.createdAt.toISOString(),
    updated_at: fn.updatedAt.toISOString(),
  };
}

export function invocationRecord(invocation: InvocationRow) {
  return {
    invocation_id: invocation.invocationId,
    task_id: invocation.taskId,
    event: invocation.event,
    status: invocation.status,
    started_at: invocation.startedAt?.toISOString() ?? null,
    completed_at: invocation.completedAt?.toISOString() ?? null,
    error: invocation.error,
  };
}
