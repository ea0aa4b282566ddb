// Lambda entry of the PRE-event state machine's RunFunction task: one subscriber's invocation.
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import { runFunctionTask } from '#shared/events/pre-events.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';

export async function handler(input: Record<string, unknown>): Promise<unknown> {
  const runtime = await getRuntime();
  const { config } = runtime;
  return runFunctionTask(runtime.db, input, {
    allowPrivate: config.outboundAllowPrivateNetworks,
    secretsKey: () => loadSecretsKey(config),
  });
}
