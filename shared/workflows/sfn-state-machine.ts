// Starts a deployed Step Functions state machine (the deployed mode of the state machine port).
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { StateMachineStarter } from './state-machine.ts';

let client: SFNClient | undefined;

export function sfnStateMachineStarter(stateMachineArn: string): StateMachineStarter {
  return {
    start: async (name, input) => {
      client ??= new SFNClient({});
      // The execution name makes a start idempotent: a retried request cannot start a second run.
      await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
      return {};
    },
  };
}
