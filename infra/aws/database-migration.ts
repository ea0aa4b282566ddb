// The deploy-time migration: functions/migrate/handler.ts run by a Trigger once the database and its
// proxy exist. Its bundle carries the platform migrations as `migrations/` beside `index.mjs`, so a
// new migration changes the bundle, which re-runs the trigger on the next deploy.
import { Duration } from 'aws-cdk-lib';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
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
  }
}
