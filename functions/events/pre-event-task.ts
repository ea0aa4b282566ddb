// Lambda entry of the PRE-event state machine's RunFunction task: one subscriber's invocation.
import { runFunctionTask } from '#shared/events/pre-events.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';

export async function handler(input: Record<string, unknown>): Promise<unknown> {
  const runtime = await getRuntime();
  return runFunctionTask(runtime.db, input, runtime.config.outboundAllowPrivateNetworks);
}
