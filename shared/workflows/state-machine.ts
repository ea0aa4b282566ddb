// The state machine port: the deployed mode starts a Step Functions execution, the local mode runs
// the same ASL definition in-process with aws-local-stepfunctions, whose Task states call the same
// task functions the deployed task Lambda runs.

/** How an execution ended, when the runner can tell (the local one always can). */
export interface ExecutionOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  output?: unknown;
  error?: string;
}

export interface StartedExecution {
  /** Settles when the execution ends; absent when it runs elsewhere (Step Functions). */
  finished?: Promise<ExecutionOutcome>;
}

export interface StateMachineStarter {
  start(executionName: string, input: Record<string, unknown>): Promise<StartedExecution>;
}

/** A Task handler: receives the state's input after `Parameters`, answers its result. */
export type TaskHandler = (input: Record<string, unknown>) => Promise<unknown>;

/**
 * The placeholder of the task function's ARN in an ASL file: CDK fills it through
 * `definitionSubstitutions`, the local runner with a Lambda ARN that is never called.
 */
export const LOCAL_TASK_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:tessera-local-task';

export function substituteDefinition(definition: unknown, substitutions: Record<string, string>): unknown {
  let text = JSON.stringify(definition);
  for (const [name, value] of Object.entries(substitutions)) text = text.split(`\${${name}}`).join(value);
  return JSON.parse(text);
}
