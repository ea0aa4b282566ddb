// Publishing a PRE event: every active function of the site subscribed to it runs through the
// PRE-event state machine (infra/state-machines/pre-event.asl.json, a Map over the invocation
// tasks), within the request's budget. The operation waits; if any subscriber failed, ran out of
// budget or could not be started, it is aborted with a validation error naming the function.
import type { Queryable } from '#shared/db/database.ts';
import { ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { LOCAL_TASK_ARN, substituteDefinition, type ExecutionOutcome } from '#shared/workflows/state-machine.ts';
import definition from '#infra/state-machines/pre-event.asl.json' with { type: 'json' };
import { createInvocations, runInvocation, type InvocationOptions, type InvocationTask } from './function-invocations.ts';
import { subscribedFunctions, type EventFunction } from './subscriber-repository.ts';

type Site = Pick<Tenant, 'schemaName'>;

/** The substitution CDK fills with the function runner's ARN. */
const FUNCTION_RUNNER_ARN_SUBSTITUTION = 'FunctionRunnerArn';

export interface PublishResult {
  status: 'success' | 'error';
  message: string;
  data: {
    event: string;
    task_ids: Array<{ function_id: number; function_name: string; task_id: string; invocation_id: string }>;
    total_subscribers: number;
  };
}

export interface EventOptions extends InvocationOptions {
  /** What is left of the request's time for the subscribers (a function's own timeout may be shorter). */
  budgetMs: number;
  /** Deployed: the Express state machine, run synchronously; unset runs the same ASL in-process. */
  stateMachineArn?: string;
}

/** The site's active subscribers of `event`, and an invocation record for each (none without subscribers). */
export async function subscriberInvocations(
  db: Queryable,
  site: Site,
  event: string,
): Promise<{ functions: EventFunction[]; tasks: InvocationTask[] }> {
  const functions = await subscribedFunctions(db, site, event);
  if (functions.length === 0) return { functions, tasks: [] };
  return {
    functions,
    tasks: await createInvocations(
      db,
      site,
      event,
      functions.map((fn) => fn.id),
    ),
  };
}

export function publishResult(event: string, functions: readonly EventFunction[], tasks: readonly InvocationTask[]): PublishResult {
  return {
    status: 'success',
    message: `${event} published to ${tasks.length} subscriber(s)`,
    data: {
      event,
      task_ids: tasks.map((task) => ({
        function_id: task.functionId,
        function_name: functions.find((fn) => fn.id === task.functionId)?.name ?? '',
        task_id: task.taskId,
        invocation_id: task.invocationId,
      })),
      total_subscribers: functions.length,
    },
  };
}

interface TaskOutcome {
  function_id: number;
  ok: boolean;
  error: string | null;
}

/** The Task state's work: run one invocation and report, never throw (the caller judges). */
export async function runFunctionTask(db: Queryable, input: Record<string, unknown>, options: InvocationOptions): Promise<TaskOutcome> {
  const outcome = await runInvocation(db, { schemaName: String(input.schema_name) }, String(input.invocation_id), input.params, {
    allowPrivate: options.allowPrivate,
    secretsKey: options.secretsKey,
    budgetMs: Number(input.budget_ms),
  });
  return { function_id: Number(input.function_id), ok: outcome.ok, error: outcome.error ?? null };
}

async function runPreEventMachine(db: Queryable, input: Record<string, unknown>, options: EventOptions): Promise<ExecutionOutcome> {
  if (options.stateMachineArn !== undefined) {
    const { runSyncExecution } = await import('#shared/workflows/sfn-sync-execution.ts');
    return runSyncExecution(options.stateMachineArn, input);
  }
  // Lambdas are bundled without the local runner (they have the deployed machine). The import sits
  // inside the condition: esbuild drops a branch whose condition its defines make false, but not
  // the code after a \`throw\`, which would keep the runner and JSONata in the bundle.
  if (process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS !== 'excluded') {
    const { runLocalStateMachine } = await import('#shared/workflows/local-state-machine.ts');
    return runLocalStateMachine(substituteDefinition(definition, { [FUNCTION_RUNNER_ARN_SUBSTITUTION]: LOCAL_TASK_ARN }), input, {
      handlers: { RunFunction: (taskInput) => runFunctionTask(db, taskInput, options) },
    });
  }
  throw new Error('PRE_EVENT_STATE_MACHINE_ARN is not set');
}

export async function publishPreEvent(
  db: Queryable,
  site: Site,
  event: string,
  params: unknown,
  options: EventOptions,
): Promise<PublishResult> {
  const { functions, tasks } = await subscriberInvocations(db, site, event);
  if (functions.length === 0) return publishResult(event, functions, tasks);
  const input = {
    schema_name: site.schemaName,
    params,
    budget_ms: options.budgetMs,
    tasks: tasks.map((task) => ({ function_id: task.functionId, invocation_id: task.invocationId })),
  };
  const execution = await runPreEventMachine(db, input, options);
  const nameOf = (id: number) => functions.find((fn) => fn.id === id)?.name ?? String(id);
  if (execution.status === 'FAILED') {
    throw ValidationError.forFields(
      { non_field_errors: [`${event} subscribers could not run: ${execution.error ?? 'unknown error'}`] },
      `${event} aborted the operation.`,
    );
  }
  const results = (execution.output as { results?: TaskOutcome[] }).results ?? [];
  const failed = results.find((result) => !result.ok);
  if (failed !== undefined || results.length !== tasks.length) {
    const name = failed === undefined ? 'a subscriber' : `"${nameOf(failed.function_id)}"`;
    const reason = failed?.error ?? 'it did not report';
    throw new ValidationError(`The function ${name} refused ${event}: ${reason}`, {
      fieldErrors: { non_field_errors: [`The function ${name} refused ${event}: ${reason}`] },
      extras: { event, function: failed === undefined ? null : nameOf(failed.function_id) },
    });
  }
  return publishResult(event, functions, tasks);
}
