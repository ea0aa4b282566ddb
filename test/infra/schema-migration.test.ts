// The schema-migration state machine in the synthesized API stack: the ASL file inline with the task
// Lambda's ARN substituted, logging on, and least-privilege grants (the machine invokes only its
// task Lambda; only the data group's function may start it, and only it learns the ARN).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  actionsOf,
  resourcesOf,
  serviceNameOf,
  statementsOfFunction,
  synthesizeTessera,
  tesseraFunctions,
  type SynthesizedApp,
} from './synth.ts';

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizeTessera();
});

const functionIdOf = (service: string) =>
  Object.entries(tesseraFunctions(synthesized.api)).find(([, fn]) => serviceNameOf(fn) === service)![0];

/** The schema-migration machine: the API stack also holds the PRE-event machine (hosting and events). */
const migrationMachines = () =>
  Object.values(resourcesOf(synthesized.api, 'AWS::StepFunctions::StateMachine')).filter(
    (machine) =>
      (machine.Properties?.DefinitionSubstitutions as Record<string, unknown> | undefined)?.MigrationTaskFunctionArn !== undefined,
  );

describe('schema-migration state machine', () => {
  it('deploys the ASL file from infra/state-machines with the task function substituted', () => {
    const machines = migrationMachines();
    expect(machines).toHaveLength(1);
    const props = machines[0]!.Properties!;
    const file = readFileSync(new URL('../../infra/state-machines/schema-migration.asl.json', import.meta.url), 'utf8');
    expect(JSON.parse(props.DefinitionString as string)).toEqual(JSON.parse(file));
    expect(props.DefinitionSubstitutions).toEqual({
      MigrationTaskFunctionArn: { 'Fn::GetAtt': [functionIdOf('tessera-schema-migration'), 'Arn'] },
    });
    expect(props.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
  });

  it('lets the state machine invoke only its task function', () => {
    const [machine] = migrationMachines();
    const roleId = (machine!.Properties!.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = Object.values(resourcesOf(synthesized.api, 'AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((role) => role.Ref === roleId))
      .flatMap(
        (policy) => (policy.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement,
      );
    const invoke = statements.filter((s) => actionsOf(s as never).includes('lambda:InvokeFunction'));
    const task = functionIdOf('tessera-schema-migration');
    expect(JSON.stringify(invoke.map((s) => s.Resource))).toContain(task);
    for (const [id] of Object.entries(tesseraFunctions(synthesized.api))) {
      if (id !== task) expect(JSON.stringify(invoke.map((s) => s.Resource))).not.toContain(`"${id}"`);
    }
  });

  it('lets only the data function start executions, and tells only it the ARN', () => {
    for (const [id, fn] of Object.entries(tesseraFunctions(synthesized.api))) {
      const starts = statementsOfFunction(synthesized.api, id).filter((s) => actionsOf(s).includes('states:StartExecution'));
      const variables = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      if (serviceNameOf(fn) === 'tessera-data') {
        expect(starts).toHaveLength(1);
        expect(variables.SCHEMA_MIGRATION_STATE_MACHINE_ARN).toBeDefined();
      } else {
        expect(starts).toEqual([]);
        expect(variables.SCHEMA_MIGRATION_STATE_MACHINE_ARN).toBeUndefined();
      }
    }
  });

  it('sweeps expired tombstones on a schedule through the task function', () => {
    // The API stack also schedules the storage maintenance sweep (storage-maintenance.test.ts).
    const rules = Object.values(resourcesOf(synthesized.api, 'AWS::Events::Rule')).filter(
      (rule) => rule.Properties?.ScheduleExpression === 'rate(6 hours)',
    );
    expect(rules).toHaveLength(1);
    const props = rules[0]!.Properties!;
    expect(props.ScheduleExpression).toBe('rate(6 hours)');
    expect(props.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [functionIdOf('tessera-schema-migration'), 'Arn'] },
        Input: JSON.stringify({ task: 'sweepAll' }),
      }),
    ]);
  });
});
