// The schema-migration state machine: the ASL file under infra/state-machines (the same file the
// local runner executes), its task Lambda, execution logs, and grants that let the machine invoke
// only that Lambda and let only the groups that start migrations start it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { REPO_ROOT, type DeploySettings } from './settings.ts';
import { TesseraFunction, type DatabaseAccess } from './tessera-function.ts';
import { acknowledgeStateMachineRole } from './user-events.ts';

export const SCHEMA_MIGRATION_ASL = path.join(REPO_ROOT, 'infra/state-machines/schema-migration.asl.json');

export interface SchemaMigrationProps {
  vpc: IVpc;
  database: DatabaseAccess;
  settings: DeploySettings;
}

export class SchemaMigration extends Construct {
  readonly stateMachine: StateMachine;
  readonly taskFunction: TesseraFunction;

  constructor(scope: Construct, id: string, props: SchemaMigrationProps) {
    super(scope, id);
    this.taskFunction = new TesseraFunction(this, 'TaskFunction', {
      entry: 'functions/data/tables/migrations/task-handler.ts',
      serviceName: 'tessera-schema-migration',
      logLevel: props.settings.logLevel,
      description: 'Tessera schema migration tasks (validate, lock, execute, validateConstraints, revert, record, invalidate, markFailed)',
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      // DDL runs up to 30 s per statement and CONCURRENTLY index builds longer; not an API budget.
      timeout: Duration.minutes(15),
      bundling: { define: { 'process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS': JSON.stringify('excluded') } },
    }).bindDatabase(props.database);

    const logs = new LogGroup(this, 'ExecutionLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      // Inline (not an S3 asset) so the template shows the definition that runs.
      definitionBody: DefinitionBody.fromString(readFileSync(SCHEMA_MIGRATION_ASL, 'utf8')),
      definitionSubstitutions: { MigrationTaskFunctionArn: this.taskFunction.functionArn },
      timeout: Duration.minutes(30),
      // Inputs carry only the tenant schema and revision id, but keep execution data out of logs anyway.
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    // The definition references the function by substitution, so CDK cannot see it: grant invoke here.
    this.taskFunction.grantInvoke(this.stateMachine);
    acknowledgeStateMachineRole(this.stateMachine, this.taskFunction);

    // Dropped columns stay hidden for the retention window (SCHEMA_TOMBSTONE_RETENTION_SECONDS),
    // then this schedule drops them in every site; a migration also sweeps its own table.
    new Rule(this, 'TombstoneSweep', {
      description: 'Drops the hidden columns of schema migrations whose retention window has passed',
      schedule: Schedule.rate(Duration.hours(6)),
      targets: [new LambdaFunction(this.taskFunction, { event: RuleTargetInput.fromObject({ task: 'sweepAll' }), retryAttempts: 2 })],
    });
  }

  /** Lets a group's function start executions (and nothing else on the machine). */
  grantStart(grantee: IGrantable & { addEnvironment(key: string, value: string): unknown }): void {
    this.stateMachine.grantStartExecution(grantee);
    grantee.addEnvironment('SCHEMA_MIGRATION_STATE_MACHINE_ARN', this.stateMachine.stateMachineArn);
  }
}
