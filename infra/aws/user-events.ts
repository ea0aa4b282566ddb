// Delivery of user events to subscribed functions: the PRE-event Express state machine (the ASL
// file the local runner executes, a Map over the subscribers, each a task of the function runner)
// and the POST-event SQS queue with a dead-letter queue (redrive after three receives) feeding a
// consumer that reports partial batch failures. Only groups that create users may use them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { REPO_ROOT, type DeploySettings } from './settings.ts';
import { TesseraFunction, type DatabaseAccess } from './tessera-function.ts';

export const PRE_EVENT_ASL = path.join(REPO_ROOT, 'infra/state-machines/pre-event.asl.json');
/** Receives before SQS moves a message to the dead-letter queue (the local queue has the same). */
export const POST_EVENT_MAX_RECEIVES = 3;
/** A function may run 300 s (spec); the queue hides a message in flight a little longer. */
const FUNCTION_TIMEOUT = Duration.seconds(300);

export interface UserEventsProps {
  vpc: IVpc;
  database: DatabaseAccess;
  /** Opens the functions' sealed signing secrets. */
  secretsKey: ISecret;
  settings: DeploySettings;
}

export class UserEvents extends Construct {
  readonly preEvents: StateMachine;
  readonly postEvents: Queue;
  readonly deadLetters: Queue;
  readonly runner: TesseraFunction;
  readonly consumer: TesseraFunction;

  constructor(scope: Construct, id: string, props: UserEventsProps) {
    super(scope, id);
    const common = {
      logLevel: props.settings.logLevel,
      vpc: props.vpc,
      // Webhooks go out through the NAT gateway; the address guard refuses private targets.
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      timeout: FUNCTION_TIMEOUT,
      bundling: { define: { 'process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS': JSON.stringify('excluded') } },
    };
    this.runner = new TesseraFunction(this, 'RunnerFunction', {
      ...common,
      entry: 'functions/events/pre-event-task.ts',
      serviceName: 'tessera-event-runner',
      description: 'Tessera PRE-event task: runs one subscribed function',
    })
      .bindDatabase(props.database)
      .bindSecretsKey(props.secretsKey);
    this.consumer = new TesseraFunction(this, 'ConsumerFunction', {
      ...common,
      entry: 'functions/events/post-event-consumer.ts',
      serviceName: 'tessera-event-consumer',
      description: 'Tessera POST-event consumer: runs queued subscriber invocations',
    })
      .bindDatabase(props.database)
      .bindSecretsKey(props.secretsKey);

    const logs = new LogGroup(this, 'PreEventLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.preEvents = new StateMachine(this, 'PreEvents', {
      // Express: started synchronously by the request that fires the event, which waits for it.
      stateMachineType: StateMachineType.EXPRESS,
      definitionBody: DefinitionBody.fromString(readFileSync(PRE_EVENT_ASL, 'utf8')),
      definitionSubstitutions: { FunctionRunnerArn: this.runner.functionArn },
      timeout: Duration.minutes(1),
      // Inputs carry the new user's data: keep execution data out of the logs.
      logs: { destination: logs, level: LogLevel.ERROR, includeExecutionData: false },
      tracingEnabled: true,
    });
    this.runner.grantInvoke(this.preEvents);

    this.deadLetters = new Queue(this, 'PostEventDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.postEvents = new Queue(this, 'PostEvents', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(FUNCTION_TIMEOUT.toSeconds() + 60),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: POST_EVENT_MAX_RECEIVES },
    });
    this.consumer.addEventSource(new SqsEventSource(this.postEvents, { batchSize: 10, reportBatchItemFailures: true }));
  }

  /** Lets a group's function fire user events: start the PRE machine synchronously and queue POST messages. */
  grantPublish(grantee: IGrantable & { addEnvironment(key: string, value: string): unknown }): void {
    this.preEvents.grantStartSyncExecution(grantee);
    this.postEvents.grantSendMessages(grantee);
    grantee.addEnvironment('PRE_EVENT_STATE_MACHINE_ARN', this.preEvents.stateMachineArn);
    grantee.addEnvironment('POST_EVENT_QUEUE_URL', this.postEvents.queueUrl);
  }
}
