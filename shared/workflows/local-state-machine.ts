// Runs an ASL state machine in this process with aws-local-stepfunctions: each Task state calls a
// local handler instead of its Lambda. Used by the dev server and tests; never in a Lambda bundle.
import type { ExecutionOutcome, StateMachineStarter, TaskHandler } from './state-machine.ts';

export interface LocalRunOptions {
  /** The local handler of each Task state, by state name. */
  handlers: Record<string, TaskHandler>;
  /** Milliseconds between retries, instead of the definition's IntervalSeconds (tests). */
  retryIntervalMs?: number;
}

/** aws-local-stepfunctions 3.0.0 uses Promise.withResolvers, which Node 20 lacks (Node 22 has it). */
function polyfillWithResolvers(): void {
  const promise = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof promise.withResolvers === 'function') return;
  promise.withResolvers = function withResolvers<T>() {
    let resolve!: (value: T) => void;
    let reject!: (reason: unknown) => void;
    const created = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise: created, resolve, reject };
  };
}

function retryStates(definition: unknown): string[] {
  const states = (definition as { States?: Record<string, { Retry?: unknown }> }).States ?? {};
  return Object.keys(states).filter((name) => states[name]?.Retry !== undefined);
}

type Library = typeof import('aws-local-stepfunctions');
type Machine = InstanceType<Library['StateMachine']>;

/**
 * One machine per definition. The library's own validation compiles asl-validator's schemas (1.1 to
 * 1.7 s per construction here), so it is off: the definition files are checked by asl-validator in
 * the tests, and a malformed state still fails its execution.
 */
const machines = new Map<string, Machine>();

/** Runs one execution to its end; a failed execution is an outcome, not a thrown error. */
export async function runLocalStateMachine(
  definition: unknown,
  input: Record<string, unknown>,
  options: LocalRunOptions,
): Promise<ExecutionOutcome> {
  polyfillWithResolvers();
  const { StateMachine, ExecutionError } = await import('aws-local-stepfunctions');
  const key = JSON.stringify(definition);
  let machine = machines.get(key);
  if (machine === undefined) {
    // The library's definition type is a deep union; the definition is checked by asl-validator in a test.
    machine = new StateMachine(definition as ConstructorParameters<typeof StateMachine>[0], { validationOptions: { noValidate: true } });
    machines.set(key, machine);
  }
  const retryIntervalOverrides =
    options.retryIntervalMs === undefined
      ? undefined
      : Object.fromEntries(retryStates(definition).map((name) => [name, options.retryIntervalMs!]));
  const execution = machine.run(input as Parameters<typeof machine.run>[0], {
    overrides: {
      taskResourceLocalHandlers: Object.fromEntries(
        Object.entries(options.handlers).map(([state, handler]) => [
          state,
          async (value: unknown) => (await handler(value as Record<string, unknown>)) as never,
        ]),
      ),
      ...(retryIntervalOverrides ? { retryIntervalOverrides } : {}),
    },
  });
  try {
    return { status: 'SUCCEEDED', output: await execution.result };
  } catch (error) {
    if (error instanceof ExecutionError) return { status: 'FAILED', error: error.message };
    throw error;
  }
}

export function localStateMachineStarter(definition: unknown, options: LocalRunOptions): StateMachineStarter {
  return {
    start: async (_name, input) => ({ finished: runLocalStateMachine(definition, input, options) }),
  };
}
