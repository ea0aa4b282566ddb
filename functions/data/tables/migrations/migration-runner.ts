// Which runner executes the schema-migration state machine: Step Functions when its ARN is
// configured (deployed), else the same ASL in this process with the task functions as its Task
// handlers (dev server, tests). The local runner is compiled out of Lambda bundles.
import type { Database } from '#shared/db/database.ts';
import { LOCAL_TASK_ARN, substituteDefinition, type StateMachineStarter, type TaskHandler } from '#shared/workflows/state-machine.ts';
import definition from '#infra/state-machines/schema-migration.asl.json' with { type: 'json' };
import { runMigrationTask, type MigrationTaskDeps, type MigrationTaskInput } from './migration-tasks.ts';

/** The substitution CDK fills with the task Lambda's ARN. */
const TASK_ARN_SUBSTITUTION = 'MigrationTaskFunctionArn';

/** The definition with its Task resources pointing at a Lambda ARN the local runner never calls. */
export function localMigrationDefinition(): unknown {
  return substituteDefinition(definition, { [TASK_ARN_SUBSTITUTION]: LOCAL_TASK_ARN });
}

/** A local handler for every Task state, each calling the task function its Parameters name. */
export function localMigrationHandlers(deps: MigrationTaskDeps): Record<string, TaskHandler> {
  const states = (definition as { States: Record<string, { Type: string }> }).States;
  const handler: TaskHandler = (input) => runMigrationTask(deps, input as unknown as MigrationTaskInput);
  return Object.fromEntries(
    Object.keys(states)
      .filter((name) => states[name]!.Type === 'Task')
      .map((name) => [name, handler]),
  );
}

export async function migrationStarter(
  db: Database,
  settings: Omit<MigrationTaskDeps, 'db'> & { stateMachineArn?: string },
): Promise<StateMachineStarter> {
  if (settings.stateMachineArn !== undefined) {
    const { sfnStateMachineStarter } = await import('#shared/workflows/sfn-state-machine.ts');
    return sfnStateMachineStarter(settings.stateMachineArn);
  }
  if (process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS !== 'excluded') {
    const { localStateMachineStarter } = await import('#shared/workflows/local-state-machine.ts');
    return localStateMachineStarter(localMigrationDefinition(), {
      handlers: localMigrationHandlers({
        db,
        lockTimeoutMs: settings.lockTimeoutMs,
        ddlTimeoutMs: settings.ddlTimeoutMs,
        tombstoneRetentionMs: settings.tombstoneRetentionMs,
      }),
    });
  }
  throw new Error('SCHEMA_MIGRATION_STATE_MACHINE_ARN is not set: a Lambda has no local state machine runner.');
}
