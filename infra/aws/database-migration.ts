// The deploy-time migration: functions/migrate/handler.ts run by a Trigger once the database and its
// proxy exist. Its bundle carries the platform migrations as `migrations/` beside `index.mjs`, so a
// new migration changes the bundle, which re-runs the trigger on the next deploy. CDK's trigger
// provider comes with AWSLambdaBasicExecutionRole; it gets an inline logs statement instead.
import { Aws, type CfnResource, Duration, Stack } from 'aws-cdk-lib';
import { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { acknowledgeNag } from './nag-checks.ts';
import { definedEnvironment, type DeploySettings } from './settings.ts';
import { TesseraFunction, type DatabaseAccess } from './tessera-function.ts';

export const MIGRATE_ENTRY = 'functions/migrate/handler.ts';
/** Source of the platform migrations, relative to the repository root. */
export const PLATFORM_MIGRATIONS_SOURCE = 'shared/db/migrations';
const MIGRATION_TIMEOUT = Duration.minutes(5);

export interface DatabaseMigrationProps {
  vpc: IVpc;
  vpcSubnets: SubnetSelection;
  database: DatabaseAccess;
  signingKey: ISecret;
  secretsKey: ISecret;
  adminPassword: ISecret;
  settings: DeploySettings;
  /** Constructs that must exist before the migration runs (the cluster and the proxy). */
  executeAfter: Construct[];
}

export class DatabaseMigration extends Construct {
  readonly function: TesseraFunction;
  readonly trigger: Trigger;

  constructor(scope: Construct, id: string, props: DatabaseMigrationProps) {
    super(scope, id);
    this.function = new TesseraFunction(this, 'Function', {
      entry: MIGRATE_ENTRY,
      serviceName: 'tessera-migrate',
      logLevel: props.settings.logLevel,
      description: 'Tessera deploy migration: platform keys, platform and tenant schemas, superuser',
      timeout: MIGRATION_TIMEOUT,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      environment: definedEnvironment({
        ADMIN_USERNAME: props.settings.adminUsername,
        ADMIN_EMAIL: props.settings.adminEmail,
      }),
      bundling: { copy: [{ from: PLATFORM_MIGRATIONS_SOURCE, to: 'migrations' }] },
    })
      .bindDatabase(props.database)
      .bindSigningKey(props.signingKey, { write: true })
      .bindSecretsKey(props.secretsKey, { write: true })
      .bindAdminPassword(props.adminPassword);

    this.trigger = new Trigger(this, 'Trigger', {
      handler: this.function,
      timeout: MIGRATION_TIMEOUT,
      executeAfter: props.executeAfter,
    });
    this.replaceProviderManagedPolicy();
  }

  /**
   * The provider behind every Trigger of the stack is a CfnResource-level singleton whose role
   * attaches AWSLambdaBasicExecutionRole (logs to any group). Its log group is named after its
   * function, which CloudFormation names `<stack>-AWSCDKTrigger…`: that prefix is the scope.
   */
  private replaceProviderManagedPolicy(): void {
    const stack = Stack.of(this);
    const provider = stack.node.tryFindChild(TRIGGER_PROVIDER_ID);
    const role = provider?.node.tryFindChild('Role') as CfnResource | undefined;
    if (role === undefined) throw new Error(`CDK's trigger provider (${TRIGGER_PROVIDER_ID}) has no role to narrow`);
    role.addPropertyDeletionOverride('ManagedPolicyArns');
    const logs = new CfnPolicy(this, 'TriggerProviderLogs', {
      roles: [role.ref],
      policyName: 'TriggerProviderLogs',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:/aws/lambda/${Aws.STACK_NAME}-AWSCDKTrigger*`,
          },
        ],
      },
    });
    this.trigger.node.addDependency(logs);
    acknowledgeNag(
      logs,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/<AWS::StackName>-AWSCDKTrigger*]',
      "The provider function's name is generated, and naming its log group through a reference would make the role depend on the function that depends on the role",
    );
  }
}

/** Construct id of the provider CDK adds to a stack for its Triggers. */
const TRIGGER_PROVIDER_ID = 'AWSCDK.TriggerCustomResourceProviderCustomResourceProvider';
