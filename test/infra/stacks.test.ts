import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import { selectRoute } from '#infra/aws/gateway-route-selection.ts';
import { gatewayRoutes, sampleRequest } from '#infra/aws/gateway-routes.ts';
import { servedPaths } from '#shared/http/route.ts';
import {
  actionsOf,
  referencedId,
  resourcesOf,
  serviceNameOf,
  statementsOfFunction,
  synthesizeTessera,
  tesseraFunctions,
  type PolicyStatement,
  type Resource,
  type SynthesizedApp,
} from './synth.ts';

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizeTessera();
});

const idOf = (construct: { node: { defaultChild?: unknown } }, stack: { getLogicalId(element: never): string }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);

/** Lambdas in the API stack that serve no routes: the schema-migration tasks, the user-event runner and consumer, the storage maintenance sweep. */
const TASK_SERVICES = ['tessera-schema-migration', 'tessera-event-runner', 'tessera-event-consumer', 'tessera-storage-maintenance'];

function apiFunctionsByGroup(): Map<string, { id: string; fn: Resource }> {
  return new Map(
    Object.entries(tesseraFunctions(synthesized.api))
      .filter(([, fn]) => !TASK_SERVICES.includes(serviceNameOf(fn)))
      .map(([id, fn]) => [serviceNameOf(fn).replace(/^tessera-/, ''), { id, fn }]),
  );
}

function secretIdsWith(action: string, statements: PolicyStatement[]): string[] {
  return statements
    .filter((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes(action))
    .flatMap((statement) => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]))
    .map((resource) => referencedId(resource, synthesized.data))
    .sort();
}

describe('Lambda functions', () => {
  it('deploys one function per endpoint group and the migrate function', () => {
    expect([...apiFunctionsByGroup().keys()].sort()).toEqual(endpointGroups.map((group) => group.name).sort());
    expect(
      Object.values(tesseraFunctions(synthesized.api))
        .map(serviceNameOf)
        .filter((name) => TASK_SERVICES.includes(name)),
    ).toEqual(TASK_SERVICES);
    expect(Object.values(tesseraFunctions(synthesized.data)).map(serviceNameOf)).toEqual(['tessera-migrate']);
  });

  it('runs every function on Node 22, arm64, with a log group kept one month', () => {
    for (const template of [synthesized.api, synthesized.data]) {
      const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup');
      for (const fn of Object.values(tesseraFunctions(template))) {
        const properties = fn.Properties!;
        expect(properties.Runtime).toBe('nodejs22.x');
        expect(properties.Architectures).toEqual(['arm64']);
        expect(properties.MemorySize).toBe(1024);
        const logGroupRef = (properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        expect(logGroups[logGroupRef]?.Properties?.RetentionInDays).toBe(30);
      }
    }
  });

  it('stops API functions before the gateway gives up and gives them a small database pool', () => {
    for (const { fn } of apiFunctionsByGroup().values()) {
      expect(fn.Properties!.Timeout).toBe(29);
      expect(fn.Properties!.Environment).toEqual({
        Variables: expect.objectContaining({ DATABASE_POOL_MAX: '2', DATABASE_NAME: 'tessera', LOG_LEVEL: 'INFO' }),
      });
    }
  });

  it('passes deploy settings from CDK context to the functions', () => {
    const custom = synthesizeTessera({ 'tessera:platformDomain': 'tessera.example.org', 'tessera:logLevel': 'WARN' });
    for (const fn of Object.values(tesseraFunctions(custom.api))) {
      // The migration task Lambda answers no HTTP request: it needs the log level, not the domain.
      const expected = TASK_SERVICES.includes(serviceNameOf(fn))
        ? { LOG_LEVEL: 'WARN' }
        : { PLATFORM_DOMAIN: 'tessera.example.org', LOG_LEVEL: 'WARN' };
      expect(fn.Properties!.Environment).toEqual({ Variables: expect.objectContaining(expected) });
    }
  });
});

describe('database', () => {
  it('is an encrypted Aurora PostgreSQL Serverless v2 cluster that is not publicly accessible', () => {
    synthesized.data.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      StorageEncrypted: true,
      ServerlessV2ScalingConfiguration: { MinCapacity: Match.anyValue(), MaxCapacity: Match.anyValue() },
    });
    const instances = Object.values(resourcesOf(synthesized.data, 'AWS::RDS::DBInstance'));
    expect(instances.length).toBeGreaterThan(0);
    for (const instance of instances) {
      expect(instance.Properties).toMatchObject({ DBInstanceClass: 'db.serverless', PubliclyAccessible: false });
    }
  });

  it('is reached through an RDS Proxy that requires TLS and uses the cluster secret', () => {
    const { data } = synthesized.stacks;
    const proxies = Object.values(resourcesOf(synthesized.data, 'AWS::RDS::DBProxy'));
    expect(proxies).toHaveLength(1);
    expect(proxies[0]!.Properties).toMatchObject({ EngineFamily: 'POSTGRESQL', RequireTLS: true });
    const [auth] = proxies[0]!.Properties!.Auth as Array<{ SecretArn: unknown }>;
    expect(referencedId(auth!.SecretArn, synthesized.data)).toBe(
      referencedId(data.resolve(data.database.secret.secretArn), synthesized.data),
    );
  });

  it('lets the API functions reach the proxy on the PostgreSQL port', () => {
    const { data } = synthesized.stacks;
    const proxyGroupId = data.getLogicalId(data.proxy.connections.securityGroups[0]!.node.defaultChild as never);
    const ingress = Object.values(resourcesOf(synthesized.api, 'AWS::EC2::SecurityGroupIngress')).filter(
      (rule) => referencedId(rule.Properties!.GroupId, synthesized.data) === proxyGroupId,
    );
    // Every group's function and the schema-migration task function.
    expect(ingress).toHaveLength(endpointGroups.length + TASK_SERVICES.length);
    for (const rule of ingress) expect(rule.Properties).toMatchObject({ FromPort: 5432, ToPort: 5432 });
  });
});

describe('HTTP API', () => {
  it('registers exactly the route keys derived from the route tables, each on its group function', () => {
    // Prepare
    const expected = gatewayRoutes(endpointGroups);
    const functions = apiFunctionsByGroup();
    const integrations = resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Integration');
    // Act
    const registered = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Route')).map((route) => {
      const target = (route.Properties!.Target as { 'Fn::Join': [string, Array<string | { Ref: string }>] })['Fn::Join'][1];
      const integration = integrations[(target[1] as { Ref: string }).Ref]!;
      const functionId = (integration.Properties!.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const group = [...functions].find(([, { id }]) => id === functionId)?.[0];
      return { routeKey: route.Properties!.RouteKey as string, group };
    });
    // Assess
    expect(registered.sort((a, b) => a.routeKey.localeCompare(b.routeKey))).toEqual(
      expected.map(({ routeKey, group }) => ({ routeKey, group })).sort((a, b) => a.routeKey.localeCompare(b.routeKey)),
    );
  });

  it('covers every route of every group with a route key that reaches that group', () => {
    // Prepare
    const functions = apiFunctionsByGroup();
    const integrations = resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Integration');
    const routes = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Route')).map((route) => {
      const target = (route.Properties!.Target as { 'Fn::Join': [string, Array<string | { Ref: string }>] })['Fn::Join'][1];
      const uri = integrations[(target[1] as { Ref: string }).Ref]!.Properties!.IntegrationUri as { 'Fn::GetAtt': [string] };
      return {
        path: (route.Properties!.RouteKey as string).replace(/^ANY /, ''),
        group: [...functions].find(([, { id }]) => id === uri['Fn::GetAtt'][0])?.[0],
      };
    });
    // Act
    const misrouted = endpointGroups.flatMap((group) =>
      group.routes
        .flatMap(servedPaths)
        .map(sampleRequest)
        .filter((request) => selectRoute(routes, request)?.group !== group.name),
    );
    // Assess
    expect(routes.length).toBeGreaterThan(0);
    expect(misrouted).toEqual([]);
  });

  it('throttles the stage as the outer bound of the rate limits', () => {
    const stages = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    expect(stages[0]!.Properties!.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
  });

  it('leaves CORS to the functions, which answer preflights as the dev server does', () => {
    const [api] = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Api'));
    expect(api!.Properties!.CorsConfiguration).toBeUndefined();
    const routeKeys = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties!.RouteKey as string,
    );
    expect(routeKeys.every((key) => key.startsWith('ANY '))).toBe(true);
  });
});

describe('IAM', () => {
  it('lets API functions read only the database and signing-key secrets (and the secrets key where used), and write none', () => {
    const { data } = synthesized.stacks;
    const idsOf = (secrets: Array<{ secretArn: string }>) =>
      secrets.map((secret) => referencedId(data.resolve(secret.secretArn), synthesized.data)).sort();
    const functions = apiFunctionsByGroup();
    for (const group of endpointGroups) {
      const statements = statementsOfFunction(synthesized.api, functions.get(group.name)!.id);
      const expected = [data.database.secret, data.secrets.signingKey];
      if (group.uses.includes('secrets-key')) expected.push(data.secrets.secretsKey);
      expect(secretIdsWith('secretsmanager:GetSecretValue', statements)).toEqual(idsOf(expected));
      expect(
        statements
          .flatMap(actionsOf)
          .filter(
            (action) =>
              action.startsWith('secretsmanager:') &&
              action !== 'secretsmanager:GetSecretValue' &&
              action !== 'secretsmanager:DescribeSecret',
          ),
      ).toEqual([]);
    }
  });

  it('lets only the migrate function write a secret, and only the keys it generates', () => {
    const { data } = synthesized.stacks;
    const [migrateId] = Object.keys(tesseraFunctions(synthesized.data));
    const generated = [idOf(data.secrets.signingKey, data), idOf(data.secrets.secretsKey, data)].sort();
    expect(secretIdsWith('secretsmanager:PutSecretValue', statementsOfFunction(synthesized.data, migrateId!))).toEqual(generated);
    const writers = Object.values(resourcesOf(synthesized.data, 'AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties!.PolicyDocument).includes('secretsmanager:PutSecretValue'),
    );
    expect(writers).toHaveLength(1);
  });

  it('lets only the groups that send mail use SES, with EMAIL_TRANSPORT=ses', () => {
    const functions = apiFunctionsByGroup();
    for (const group of endpointGroups) {
      const { id, fn } = functions.get(group.name)!;
      const sends = statementsOfFunction(synthesized.api, id).flatMap(actionsOf).includes('ses:SendEmail');
      expect(sends).toBe(group.uses.includes('email'));
      const transport = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.EMAIL_TRANSPORT;
      expect(transport).toBe(group.uses.includes('email') ? 'ses' : undefined);
    }
    expect(JSON.stringify(resourcesOf(synthesized.api, 'AWS::IAM::Policy'))).not.toContain('PutSecretValue');
  });

  it('gives the admin password to the migrate function alone', () => {
    const { data } = synthesized.stacks;
    const [migrateId] = Object.keys(tesseraFunctions(synthesized.data));
    const adminId = idOf(data.secrets.adminPassword, data);
    expect(secretIdsWith('secretsmanager:GetSecretValue', statementsOfFunction(synthesized.data, migrateId!))).toContain(adminId);
    expect(JSON.stringify(synthesized.api.toJSON())).not.toContain(adminId);
  });
});

describe('deploy migration', () => {
  it('is a Trigger on the migrate function that runs after the cluster and the proxy exist', () => {
    const { data } = synthesized.stacks;
    const triggers = Object.values(resourcesOf(synthesized.data, 'Custom::Trigger'));
    expect(triggers).toHaveLength(1);
    const [trigger] = triggers;
    const [migrateId] = Object.keys(tesseraFunctions(synthesized.data));
    const versionId = (trigger!.Properties!.HandlerArn as { Ref: string }).Ref;
    expect(resourcesOf(synthesized.data)[versionId]?.Properties?.FunctionName).toEqual({ Ref: migrateId });
    expect(trigger!.DependsOn).toEqual(
      expect.arrayContaining([idOf(data.cluster, data), data.getLogicalId(data.proxy.node.defaultChild as never)]),
    );
  });

  it('gives the migrate function the database, the signing key and the admin password', () => {
    const [migrate] = Object.values(tesseraFunctions(synthesized.data));
    expect(Object.keys((migrate!.Properties!.Environment as { Variables: object }).Variables).sort()).toEqual(
      expect.arrayContaining([
        'ADMIN_PASSWORD_SECRET_ARN',
        'DATABASE_HOST',
        'DATABASE_NAME',
        'DATABASE_SECRET_ARN',
        'JWT_SIGNING_KEY_SECRET_ARN',
        'SECRETS_ENCRYPTION_KEY_SECRET_ARN',
      ]),
    );
  });

  it('completes before the API stack is deployed', () => {
    const { api, data } = synthesized.stacks;
    expect(api.dependencies).toContain(data);
  });
});
