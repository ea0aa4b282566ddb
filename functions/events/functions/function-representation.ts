// How functions and their invocations look in answers (DECISIONS: Events and functions).
import type { InvocationRow } from './function-repository.ts';
import type { OpenedFunction } from './function-service.ts';

export function functionRecord(fn: OpenedFunction) {
  return {
    id: fn.id,
    name: fn.name,
    slug: fn.slug,
    app: fn.appId,
    app_slug: fn.appSlug,
    execution_mode: fn.executionMode,
    webhook_url: fn.webhookUrl,
    // The receiver needs it to verify the X-Tessera-Signature of each call.
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
