// The HTTP API: one bundled Lambda per endpoint group, routes derived from the groups' route
// tables. No API Gateway CORS: the functions answer preflights themselves, as the dev server does.
// Access log, alarms and (with a domain and hosted zone in context) the platform and tenant hosts.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { type CfnStage, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { EndpointGroup } from '#functions/groups.ts';
import { groupBundleOptions } from '#infra/bundling.ts';
import { ApiDomain } from './api-domain.ts';
import { gatewayRoutes } from './gateway-routes.ts';
import type { HostingStack } from './hosting-stack.ts';
import { acknowledgeNag } from './nag-checks.ts';
import { Observability } from './observability.ts';
import { definedEnvironment, type DeploySettings } from './settings.ts';
import { SchemaMigration } from './schema-migration.ts';
import { UserEvents } from './user-events.ts';
import { StorageMaintenance } from './storage-maintenance.ts';
import { TesseraFunction, type DatabaseAccess } from './tessera-function.ts';

export interface ApiStackProps extends StackProps {
  vpc: IVpc;
  database: DatabaseAccess;
  signingKey: ISecret;
  secretsKey: ISecret;
  /** The bucket of object bytes, for the groups that use the object store. */
  objects: IBucket;
  /** The builds bucket and the edge's host → build map, for the groups that manage frontend builds. */
  hosting: Pick<HostingStack, 'builds' | 'hostMap'>;
  settings: DeploySettings;
  groups: readonly Pick<EndpointGroup, 'name' | 'entry' | 'routes' | 'uses' | 'files' | 'servesApiDescription'>[];
}

/**
 * Stage throttling: the outer bound in front of the per-caller limits the functions count in the
 * database (DECISIONS). It caps the whole API, whatever reaches no function (a path no route
 * answers is refused by the gateway itself) and whatever a flood costs before it is counted.
 */
export const STAGE_THROTTLE = { rateLimitPerSecond: 500, burstLimit: 1000 } as const;

/** `console` → `Console`, `user-sites` → `UserSites`: construct ids are PascalCase. */
function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export class ApiStack extends Stack {
  readonly httpApi: HttpApi;
  /** The Lambda of each endpoint group, by group name. */
  readonly functions: ReadonlyMap<string, TesseraFunction>;
  readonly schemaMigration: SchemaMigration;
  readonly userEvents: UserEvents;
  readonly observability: Observability;
  /** Present when `tessera:platformDomain` and `tessera:hostedZoneId` are given. */
  readonly domain?: ApiDomain;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    // Before any construct: a conflict between route tables fails the synth with its reason.
    const routes = gatewayRoutes(props.groups);

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: 'tessera',
      description: 'Tessera platform API',
      createDefaultStage: true,
    });
    // HttpApi creates its default stage without throttle options; they are set on the stage itself.
    const stage = this.httpApi.defaultStage!.node.defaultChild as CfnStage;
    stage.defaultRouteSettings = {
      throttlingRateLimit: STAGE_THROTTLE.rateLimitPerSecond,
      throttlingBurstLimit: STAGE_THROTTLE.burstLimit,
    };

    this.schemaMigration = new SchemaMigration(this, 'SchemaMigration', {
      vpc: props.vpc,
      database: props.database,
      settings: props.settings,
    });
    this.userEvents = new UserEvents(this, 'UserEvents', {
      vpc: props.vpc,
      database: props.database,
      secretsKey: props.secretsKey,
      settings: props.settings,
    });
    new StorageMaintenance(this, 'StorageMaintenance', {
      vpc: props.vpc,
      database: props.database,
      settings: props.settings,
      objects: props.objects,
      builds: props.hosting.builds,
      hostMap: props.hosting.hostMap,
    });

    const functions = new Map<string, TesseraFunction>();
    for (const group of props.groups) {
      const fn = new TesseraFunction(this, `${pascalCase(group.name)}Function`, {
        entry: group.entry,
        serviceName: `tessera-${group.name}`,
        logLevel: props.settings.logLevel,
        description: `Tessera ${group.name} endpoints`,
        vpc: props.vpc,
        vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
        bundling: groupBundleOptions(group, props.groups),
        environment: definedEnvironment({
          PLATFORM_DOMAIN: props.settings.platformDomain,
          CORS_ORIGINS: props.settings.corsOrigins,
        }),
      })
        .bindDatabase(props.database)
        .bindSigningKey(props.signingKey);
      if (group.uses.includes('secrets-key')) fn.bindSecretsKey(props.secretsKey);
      if (group.uses.includes('email')) fn.bindEmail(props.settings);
      if (group.uses.includes('object-store')) fn.bindObjectStore(props.objects);
      if (group.uses.includes('hosted-builds')) fn.bindHostedBuilds(props.hosting, props.settings.hostedDomain);
      if (group.uses.includes('document-library') && props.settings.documentLibrary !== undefined) {
        fn.bindDocumentLibrary(props.settings.documentLibrary);
      }
      if (group.uses.includes('schema-migrations')) this.schemaMigration.grantStart(fn);
      if (group.uses.includes('user-events')) this.userEvents.grantPublish(fn);
      functions.set(group.name, fn);

      // One invoke permission per function for the whole API rather than one per route, which
      // would grow the function's resource policy with every route.
      const integration = new HttpLambdaIntegration(`${pascalCase(group.name)}Integration`, fn, {
        scopePermissionToRoute: false,
      });
      for (const route of routes.filter((candidate) => candidate.group === group.name)) {
        this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod.ANY], integration });
      }
    }
    this.functions = functions;
    acknowledgeNag(
      this.httpApi,
      'AwsSolutions-APIG4',
      'Authorization happens in the functions: each route decides whether it needs a token (sign-in, JWKS, invitations and public site routes need none), verifies it with pinned algorithms and checks the tenant; a gateway authorizer would verify every token twice',
    );

    this.observability = new Observability(this, 'Observability', {
      httpApi: this.httpApi,
      deadLetterQueues: [{ name: 'PostEvents', queue: this.userEvents.deadLetters }],
      alarmEmail: props.settings.alarmEmail,
    });
    const { platformDomain, hostedZoneId, hostedZoneName } = props.settings;
    if (platformDomain !== undefined && hostedZoneId !== undefined) {
      this.domain = new ApiDomain(this, 'Domain', { httpApi: this.httpApi, platformDomain, hostedZoneId, hostedZoneName });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint });
  }
}
