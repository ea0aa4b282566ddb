// Runs a deployed Express state machine synchronously and answers how it ended (PRE events wait for
// their subscribers inside the request).
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import type { ExecutionOutcome } from './state-machine.ts';

let client: SFNClient | undefined;

export async function runSyncExecution(stateMachineArn: string, input: Record<string, unknown>): Promise<ExecutionOutcome> {
  client ??= new SFNClient({});
  const result = await client.send(new StartSyncExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
  if (result.status === 'SUCCEEDED')
    return { status: 'SUCCEEDED', output: result.output === undefined ? undefined : JSON.parse(result.output) };
  return { status: 'FAILED', error: [result.error, result.cause].filter(Boolean).join(': ') || String(result.status) };
}
