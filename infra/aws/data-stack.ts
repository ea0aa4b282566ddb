// The platform's state: Aurora PostgreSQL Serverless v2 behind an RDS Proxy (TLS required), the
// platform secrets, and the deploy migration that brings all of it up to date before the API
// stack (which depends on this one) is deployed.
import { CfnOutput, Duration, Names, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { SubnetType, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
} from 'aws-cdk-lib/aws-rds';
import type { Construct } from 'constructs';
import { DatabaseMigration } from './database-migration.ts';
import { acknowledgeNag } from './nag-checks.ts';
import { PlatformSecrets } from './platform-secrets.ts';
import type { DeploySettings } from './settings.ts';
import type { DatabaseAccess } from './tessera-function.ts';

export const DATABASE_NAME = 'tessera';
const DATABASE_USER = 'tessera';

export interface DataStackProps extends StackProps {
  vpc: IVpc;
  settings: DeploySettings;
  /** Aurora capacity units; 0.5 keeps a warm minimum (0 would pause and add seconds to a cold request). */
  minCapacity?: number;
  maxCapacity?: number;
}

export class DataStack extends Stack {
  readonly cluster: DatabaseCluster;
  readonly proxy: DatabaseProxy;
  readonly database: DatabaseAccess;
  readonly secrets: PlatformSecrets;
  readonly migration: DatabaseMigration;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const privateSubnets: SubnetSelection = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };

    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_16_6 }),
      credentials: Credentials.fromGeneratedSecret(DATABASE_USER),
      defaultDatabaseName: DATABASE_NAME,
      writer: ClusterInstance.serverlessV2('Writer', { publiclyAccessible: false }),
      serverlessV2MinCapacity: props.minCapacity ?? 0.5,
      serverlessV2MaxCapacity: props.maxCapacity ?? 4,
      storageEncrypted: true,
      vpc: props.vpc,
      vpcSubnets: privateSubnets,
      backup: { retention: Duration.days(7) },
      // A stack delete leaves a snapshot (the default), and the cluster refuses to be deleted by
      // anything but a deliberate change of this flag.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.SNAPSHOT,
      // Operators may sign in with IAM tokens; the functions reach the database through the proxy.
      iamAuthentication: true,
    });
    const clusterSecret = this.cluster.secret;
    if (clusterSecret === undefined) throw new Error('The cluster was created without a credentials secret');
    // `cluster.secret` is the secret's attachment to the cluster; the finding is on the secret itself.
    acknowledgeNag(
      this.cluster.node.findChild('Secret'),
      'AwsSolutions-SMG4',
      "Functions read these credentials once per container to authenticate to RDS Proxy; a rotation would fail their new connections until they restart. Rotation waits for IAM authentication at the proxy (then this secret is the proxy's alone)",
    );

    this.proxy = this.cluster.addProxy('Proxy', {
      // Proxy names are unique per account and region; derive one from the construct path.
      dbProxyName: `${Names.uniqueResourceName(this.cluster, { maxLength: 54, separator: '-' })}-proxy`,
      secrets: [clusterSecret],
      vpc: props.vpc,
      vpcSubnets: privateSubnets,
      requireTLS: true,
    });

    this.database = { proxy: this.proxy, secret: clusterSecret, databaseName: DATABASE_NAME };
    this.secrets = new PlatformSecrets(this, 'PlatformSecrets');
    // What an operator reads after the first deploy (`aws secretsmanager get-secret-value --secret-id <it>`).
    new CfnOutput(this, 'AdminPasswordSecretArn', { value: this.secrets.adminPassword.secretArn });
    this.migration = new DatabaseMigration(this, 'Migration', {
      vpc: props.vpc,
      vpcSubnets: privateSubnets,
      database: this.database,
      signingKey: this.secrets.signingKey,
      secretsKey: this.secrets.secretsKey,
      adminPassword: this.secrets.adminPassword,
      settings: props.settings,
      executeAfter: [this.cluster, this.proxy],
    });
  }
}
