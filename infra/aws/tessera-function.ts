// Our Lambda function: bundled by `buildLambdaBundle` (../bundling.ts; what the bundle benchmark
// measures and the bundle tests run is what is deployed), arm64 on Node 22, Powertools environment,
// X-Ray tracing, a log group kept one month, and a role of its own with inline statements only (no
// AWS managed policies). Caller props are spread last; `bind*` helpers wire access and configuration.
import path from 'node:path';
import { Annotations, AssetHashType, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import type { IKeyValueStore } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing, type FunctionOptions } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { DatabaseProxy } from 'aws-cdk-lib/aws-rds';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { buildLambdaBundle, LAMBDA_ENTRY_FILE, type BundleOptions } from '#infra/bundling.ts';
import { acknowledgeNag, acknowledgeNagPattern, bucketKeysWildcard } from './nag-checks.ts';
import { REPO_ROOT, type DocumentLibrarySettings, type LogLevel } from './settings.ts';

/** The address of `Name <address>` or of a bare address. */
function senderAddress(from: string): string {
  const bracketed = /<([^>]+)>/.exec(from);
  return (bracketed?.[1] ?? from).trim();
}

/** The runtime the bundles are built for (`LAMBDA_NODE_TARGET`); it also ships an AWS SDK v3, which we do not use. */
const LAMBDA_RUNTIME = Runtime.NODEJS_22_X;

/** What a function needs to reach the database: the proxy, the credentials it fronts, the name. */
export interface DatabaseAccess {
  proxy: DatabaseProxy;
  secret: ISecret;
  databaseName: string;
}

/** Each Lambda container keeps a small pool; RDS Proxy does the real pooling. */
export const LAMBDA_DATABASE_POOL_MAX = 2;

/** API Gateway gives up on a request after about 30 seconds; an API function stops before that. */
export const API_FUNCTION_TIMEOUT = Duration.seconds(29);

/** CloudWatch namespace of the functions' Powertools metrics. */
export const METRICS_NAMESPACE = 'Tessera';

/**
 * The entry bundled on this machine by esbuild (no Docker) into index.mjs and its chunks. When a
 * synth skips bundling (tests), CDK never calls `tryBundle` and hashes the asset's construct path.
 */
function bundledCode(entry: string, bundling: BundleOptions): Code {
  return Code.fromAsset(REPO_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: LAMBDA_RUNTIME.bundlingImage, // never pulled: local bundling always succeeds or throws
      // Unused by local bundling, but CDK caches a bundle under the JSON of these options, where
      // `local` (a function) vanishes: without it two functions of one folder share one bundle.
      environment: { TESSERA_BUNDLE: JSON.stringify({ entry, ...bundling }) },
      local: {
        tryBundle(outputDir: string): boolean {
          buildLambdaBundle({ entry, outdir: outputDir, ...bundling });
          return true;
        },
      },
    },
  });
}

/** Every function gets its own log group and role (with the statements that come with them). */
export interface TesseraFunctionProps extends Omit<FunctionOptions, 'logGroup' | 'role'> {
  /** Source of the entry, relative to the repository root (or absolute). */
  entry: string;
  /** POWERTOOLS_SERVICE_NAME of the function's logs. */
  serviceName: string;
  logLevel: LogLevel;
  bundling?: BundleOptions;
}

/**
 * What AWSLambdaVPCAccessExecutionRole grants, as our own statement: Lambda manages the function's
 * network interfaces with these. EC2 offers no resource-level scoping for Describe*, and the
 * interfaces do not exist before Lambda creates them, so the resource is `*`.
 */
const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
];

export class TesseraFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: TesseraFunctionProps) {
    const { serviceName, logLevel, entry, bundling, ...functionProps } = props;
    const logGroup = new LogGroup(scope, `${id}LogGroup`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // Our own role instead of CDK's, which would attach AWSLambdaBasicExecutionRole (logs to any
    // group) and AWSLambdaVPCAccessExecutionRole: this one writes to the function's log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    super(scope, id, {
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: API_FUNCTION_TIMEOUT,
      tracing: Tracing.ACTIVE,
      ...functionProps,
      role,
      runtime: LAMBDA_RUNTIME,
      handler: `${path.basename(LAMBDA_ENTRY_FILE, '.mjs')}.handler`,
      code: bundledCode(entry, bundling ?? {}),
      logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        LOG_LEVEL: logLevel,
        ...props.environment,
      },
    });
    logGroup.grantWrite(this);
    if (props.vpc !== undefined) {
      this.addToRolePolicy(new PolicyStatement({ actions: VPC_NETWORK_INTERFACE_ACTIONS, resources: ['*'] }));
    }
    acknowledgeNag(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'Only actions without resource-level scoping: X-Ray PutTraceSegments/PutTelemetryRecords and the network-interface actions Lambda needs in a VPC',
    );
    acknowledgeNag(
      this,
      'AwsSolutions-L1',
      'Bundles target nodejs22.x on purpose (DESIGN: Lambdas run Node 22 on arm64); a runtime upgrade is a deliberate, tested change',
    );
  }

  /** Database through RDS Proxy: credentials secret, proxy endpoint, network path, small pool. */
  bindDatabase(access: DatabaseAccess): this {
    this.addEnvironment('DATABASE_SECRET_ARN', access.secret.secretArn);
    this.addEnvironment('DATABASE_HOST', access.proxy.endpoint);
    this.addEnvironment('DATABASE_NAME', access.databaseName);
    this.addEnvironment('DATABASE_POOL_MAX', String(LAMBDA_DATABASE_POOL_MAX));
    access.secret.grantRead(this);
    // Inert while the proxy authenticates with the secret (IAM auth disabled); lets the proxy
    // switch to IAM auth without touching every function's policy.
    access.proxy.grantConnect(this);
    // Opened from the function's side so the ingress rule lives in the function's stack (the other
    // way round, the data stack would reference the API stack: a cycle). The proxy's connections
    // carry no default port, hence the explicit one.
    this.connections.allowTo(access.proxy, Port.POSTGRES, `${this.node.id} to the database proxy`);
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-ec2:ipv4IgnoreEgressRule',
      'Functions keep all outbound traffic (Secrets Manager through NAT); only the ingress side matters',
    );
    return this;
  }

  /**
   * The token signing key. Reading is all an API function needs; `write` is for the deploy
   * migration alone, which fills the placeholder, and grants PutSecretValue and nothing more.
   */
  bindSigningKey(secret: ISecret, options: { write?: boolean } = {}): this {
    return this.bindGeneratedKey('JWT_SIGNING_KEY_SECRET_ARN', secret, options);
  }

  /**
   * The AES-256 key of tenant secret values. Groups that store or read secrets read it; only the
   * deploy migration, which generates it, may write it.
   */
  bindSecretsKey(secret: ISecret, options: { write?: boolean } = {}): this {
    return this.bindGeneratedKey('SECRETS_ENCRYPTION_KEY_SECRET_ARN', secret, options);
  }

  private bindGeneratedKey(variable: string, secret: ISecret, options: { write?: boolean }): this {
    this.addEnvironment(variable, secret.secretArn);
    secret.grantRead(this);
    if (options.write === true) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:PutSecretValue'], resources: [secret.secretArn] }));
      secret.encryptionKey?.grantEncrypt(this);
    }
    return this;
  }

  /** Mail through Amazon SES from the configured sender; the identity must be verified in SES. */
  bindEmail(settings: { emailFrom?: string; consoleUrl?: string }): this {
    this.addEnvironment('EMAIL_TRANSPORT', 'ses');
    if (settings.emailFrom !== undefined) this.addEnvironment('EMAIL_FROM', settings.emailFrom);
    if (settings.consoleUrl !== undefined) this.addEnvironment('CONSOLE_URL', settings.consoleUrl);
    const stack = Stack.of(this);
    const identity = (name: string): string => stack.formatArn({ service: 'ses', resource: 'identity', resourceName: name });
    // SES authorizes a send on the sender's identity: the address, or its domain when the domain
    // is what was verified. Without a configured sender any verified identity may be used.
    const sender = settings.emailFrom === undefined ? undefined : senderAddress(settings.emailFrom);
    const identities = sender === undefined ? [identity('*')] : [identity(sender), identity(sender.slice(sender.lastIndexOf('@') + 1))];
    this.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: identities }));
    if (sender === undefined) {
      acknowledgeNag(
        this.role!,
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        'No sender configured (tessera:emailFrom): any identity verified in SES may send; set the sender to narrow this to its address and domain',
      );
    }
    return this;
  }

  /**
   * Object bytes in S3. Exactly what the adapter calls: get/head (GetObject), put, copy and
   * presigned PUTs (PutObject, GetObject on the source), deletes, aborting a refused multipart
   * upload; ListBucket only so that a missing key answers 404 rather than 403.
   */
  bindObjectStore(bucket: IBucket): this {
    this.addEnvironment('OBJECT_STORE', 's3');
    this.addEnvironment('S3_BUCKET', bucket.bucketName);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    this.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    acknowledgeNagPattern(
      this.role!,
      bucketKeysWildcard(bucket),
      'Keys are chosen per tenant, bucket and object at run time; the grant covers this one bucket only',
    );
    return this;
  }

  /**
   * Frontend builds: the builds bucket (files of every build), the KeyValueStore the edge reads
   * host → active build from (exactly the calls shared/hosting/kvs-host-mappings.ts makes), and the
   * hosted domain the workers' subdomains live under.
   */
  bindHostedBuilds(hosting: { builds: IBucket; hostMap: IKeyValueStore }, hostedDomain: string | undefined): this {
    const { builds: bucket, hostMap } = hosting;
    this.addEnvironment('HOSTING_BUCKET', bucket.bucketName);
    this.addEnvironment('HOSTING_KVS_ARN', hostMap.keyValueStoreArn);
    if (hostedDomain !== undefined) this.addEnvironment('HOSTED_DOMAIN', hostedDomain);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    this.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    acknowledgeNagPattern(
      this.role!,
      bucketKeysWildcard(bucket),
      'Keys are chosen per tenant, bucket and object at run time; the grant covers this one bucket only',
    );
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'cloudfront-keyvaluestore:DescribeKeyValueStore',
          'cloudfront-keyvaluestore:PutKey',
          'cloudfront-keyvaluestore:DeleteKey',
        ],
        resources: [hostMap.keyValueStoreArn],
      }),
    );
    return this;
  }

  /**
   * Microsoft Graph behind document-library buckets: the app's identity, the SharePoint host of the
   * sites' libraries, and read access to the secret holding its client secret. Calls go out through
   * the VPC's NAT gateway.
   */
  bindDocumentLibrary(settings: DocumentLibrarySettings): this {
    this.addEnvironment('GRAPH_TENANT_ID', settings.tenantId);
    this.addEnvironment('GRAPH_CLIENT_ID', settings.clientId);
    this.addEnvironment('GRAPH_CLIENT_SECRET_ARN', settings.clientSecretArn);
    this.addEnvironment('GRAPH_SITE_HOSTNAME', settings.siteHostname);
    if (settings.sitePath !== undefined) this.addEnvironment('GRAPH_SITE_PATH', settings.sitePath);
    Secret.fromSecretCompleteArn(this, 'GraphClientSecret', settings.clientSecretArn).grantRead(this);
    return this;
  }

  /** The bootstrap superuser's password; only the deploy migration reads it. */
  bindAdminPassword(secret: ISecret): this {
    this.addEnvironment('ADMIN_PASSWORD_SECRET_ARN', secret.secretArn);
    secret.grantRead(this);
    return this;
  }
}
