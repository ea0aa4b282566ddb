// Runs one subscribed function for one event and keeps its invocation record: pending when the
// task is created, then succeeded or failed with the reason. Used by whoever fires events (the PRE
// state machine's task, the POST queue's consumer). A delivery claims the invocation by its id: one
// that is running or has succeeded is not run again (a duplicate delivery runs nothing); a failed
// one may be retried, up to the caller's number of attempts.
import { randomUUID } from 'node:crypto';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { lazyImport } from '#shared/lazy-import.ts';
import { openSigningSecret, storedSigningSecretOf, type StoredSigningSecret } from './signing-secrets.ts';
import type { WebhookOptions, WebhookOutcome } from './webhook-call.ts';

/**
 * The webhook client (node's http, https, dns and net) loads with the first call: the groups that
 * fire events import this module, yet only the state machine's task and the queue's consumer call.
 */
const loadWebhookCall = lazyImport(() => import('./webhook-call.ts'));

type Site = Pick<Tenant, 'schemaName'>;

/** Whether a site still owns this schema: an invocation queued for a deleted site finds none. */
export async function siteSchemaExists(db: Queryable, schemaName: string): Promise<boolean> {
  const rows = await db.rows(sql`select 1 from platform.sites where schema_name = ${schemaName} limit 1`);
  return rows.length > 0;
}

export interface SubscribedFunction {
  id: number;
  name: string;
  slug: string;
  webhookUrl: string;
  storedSecret: StoredSigningSecret;
  timeoutSeconds: number;
  isActive: boolean;
}

export interface InvocationTask {
  functionId: number;
  invocationId: string;
  taskId: string;
}

/** Records a pending invocation for each function and answers their task identifiers. */
export async function createInvocations(
  db: Queryable,
  site: Site,
  event: string,
  functionIds: readonly number[],
): Promise<InvocationTask[]> {
  const tasks: InvocationTask[] = functionIds.map((functionId) => ({ functionId, invocationId: randomUUID(), taskId: randomUUID() }));
  for (const task of tasks) {
    await db.run(sql`insert into ${tenantTable(site, 'function_invocations')} (invocation_id, task_id, function_id, event, status)
      values (${task.invocationId}, ${task.taskId}, ${task.functionId}, ${event}, 'pending')`);
  }
  return tasks;
}

export async function findSubscribedFunction(db: Queryable, site: Site, functionId: number): Promise<SubscribedFunction | undefined> {
  const [row] = await db.rows<Record<string, unknown>>(sql`select * from ${tenantTable(site, 'functions')} where id = ${functionId}`);
  if (row === undefined) return undefined;
  return {
    id: Number(row.id),
    name: String(row.name),
    slug: String(row.slug),
    webhookUrl: String(row.webhook_url),
    storedSecret: storedSigningSecretOf(row),
    timeoutSeconds: Number(row.timeout_seconds),
    isActive: Boolean(row.is_active),
  };
}

export interface InvocationOptions extends WebhookOptions {
  /** The secrets key, loaded only when a sealed signing secret is opened. */
  secretsKey: () => Promise<Buffer>;
}

/** The function's signing secret in clear, or undefined when it cannot be opened (a changed key). */
async function signingSecretOf(site: Site, fn: SubscribedFunction, options: InvocationOptions): Promise<string | undefined> {
  try {
    return await openSigningSecret(options.secretsKey, site.schemaName, fn.id, fn.storedSecret);
  } catch {
    return undefined;
  }
}

export type InvocationResult = WebhookOutcome & { skipped?: boolean };

/**
 * Runs the invocation if it is still pending (claiming it in one statement), within `budgetMs` when
 * given; answers what happened. A claimed or finished invocation is skipped: delivery twice runs once.
 */
export async function runInvocation(
  db: Queryable,
  site: Site,
  invocationId: string,
  params: unknown,
  options: InvocationOptions & { budgetMs?: number; maxAttempts?: number },
): Promise<InvocationResult> {
  const [claimed] = await db.rows<{ function_id: number; event: string }>(sql`
    update ${tenantTable(site, 'function_invocations')} set status = 'running', started_at = now(), attempts = attempts + 1
    where invocation_id = ${invocationId} and (status = 'pending' or (status = 'failed' and attempts < ${options.maxAttempts ?? 1}))
    returning function_id, event`);
  if (claimed === undefined) return { ok: true, skipped: true };
  const fn = await findSubscribedFunction(db, site, Number(claimed.function_id));
  const secret = fn === undefined ? undefined : await signingSecretOf(site, fn, options);
  let outcome: WebhookOutcome;
  if (fn === undefined || !fn.isActive) outcome = { ok: false, error: 'the function is inactive or gone' };
  else if (secret === undefined) outcome = { ok: false, error: 'the signing secret cannot be opened with the secrets key' };
  else {
    const timeoutMs = Math.min(fn.timeoutSeconds * 1000, options.budgetMs ?? Number.POSITIVE_INFINITY);
    const { callWebhook } = await loadWebhookCall();
    outcome = await callWebhook(
      { url: fn.webhookUrl, secret, timeoutMs },
      { event: claimed.event, params, invocation_id: invocationId },
      options,
    );
  }
  await db.run(sql`update ${tenantTable(site, 'function_invocations')}
    set status = ${outcome.ok ? 'succeeded' : 'failed'}, completed_at = now(), error = ${outcome.error ?? null}
    where invocation_id = ${invocationId}`);
  return outcome;
}
