import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { edgeHostRouterCode } from '#infra/aws/edge-host-router.ts';
import { buildFileKey, requestedSegments } from '#shared/hosting/build-keys.ts';
import {
  actionsOf,
  referencedId,
  resourcesOf,
  serviceNameOf,
  statementsOfFunction,
  synthesizeTessera,
  tesseraFunctions,
  type SynthesizedApp,
} from './synth.ts';

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizeTessera({
    'tessera:hostedDomain': 'sites.example.org',
    'tessera:hostedCertificateArn': 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
  });
});

function functionIdOf(groupName: string): string {
  return Object.entries(tesseraFunctions(synthesized.api)).find(([, fn]) => serviceNameOf(fn) === `tessera-${groupName}`)![0];
}

describe('hosting stack', () => {
  it('keeps builds in a private, encrypted bucket reachable over TLS only', () => {
    synthesized.hosting.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    synthesized.hosting.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('serves them through one distribution on the wildcard domain, with origin access control and the host router', () => {
    const [distribution] = Object.values(resourcesOf(synthesized.hosting, 'AWS::CloudFront::Distribution'));
    const config = distribution!.Properties!.DistributionConfig as Record<string, any>; // `any`: template read field by field

    expect(config.Aliases).toEqual(['*.sites.example.org']);
    expect(config.ViewerCertificate.AcmCertificateArn).toBe('arn:aws:acm:us-east-1:123456789012:certificate/abc');
    expect(config.Origins[0].OriginAccessControlId).toBeDefined();
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: expect.anything() }]);
    synthesized.hosting.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionConfig: Match.objectLike({
        Runtime: 'cloudfront-js-2.0',
        KeyValueStoreAssociations: [{ KeyValueStoreARN: Match.anyValue() }],
      }),
    });
    synthesized.hosting.resourceCountIs('AWS::CloudFront::KeyValueStore', 1);
  });

  it('gives only the hosting function the builds bucket and the hosted domain', () => {
    const hostingId = functionIdOf('hosting');
    const environment = (resourcesOf(synthesized.api)[hostingId]!.Properties!.Environment as { Variables: Record<string, unknown> })
      .Variables;
    const statements = statementsOfFunction(synthesized.api, hostingId);

    expect(environment.HOSTED_DOMAIN).toBe('sites.example.org');
    expect(referencedId(environment.HOSTING_BUCKET, synthesized.hosting)).toBe(
      synthesized.stacks.hosting.getLogicalId(synthesized.stacks.hosting.builds.node.defaultChild as never),
    );
    expect(statements.flatMap(actionsOf)).toEqual(expect.arrayContaining(['s3:PutObject', 's3:DeleteObject']));
    for (const group of ['auth', 'console', 'data', 'storage']) {
      const variables = (
        resourcesOf(synthesized.api)[functionIdOf(group)]!.Properties!.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables.HOSTING_BUCKET).toBeUndefined();
    }
  });

  it('lets only the hosting function write the host map, with exactly the calls it makes, on that store alone', () => {
    const hostingId = functionIdOf('hosting');
    const hostMapId = synthesized.stacks.hosting.getLogicalId(synthesized.stacks.hosting.hostMap.node.defaultChild as never);
    const environment = (resourcesOf(synthesized.api)[hostingId]!.Properties!.Environment as { Variables: Record<string, unknown> })
      .Variables;
    const kvsStatements = statementsOfFunction(synthesized.api, hostingId).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('cloudfront-keyvaluestore:')),
    );

    expect(referencedId(environment.HOSTING_KVS_ARN, synthesized.hosting)).toBe(hostMapId);
    expect(kvsStatements).toHaveLength(1);
    expect(actionsOf(kvsStatements[0]!).sort()).toEqual([
      'cloudfront-keyvaluestore:DeleteKey',
      'cloudfront-keyvaluestore:DescribeKeyValueStore',
      'cloudfront-keyvaluestore:PutKey',
    ]);
    expect(referencedId(kvsStatements[0]!.Resource, synthesized.hosting)).toBe(hostMapId);
    for (const group of ['auth', 'console', 'data', 'storage']) {
      const actions = statementsOfFunction(synthesized.api, functionIdOf(group)).flatMap(actionsOf);
      expect(actions.filter((action) => action.startsWith('cloudfront-keyvaluestore:'))).toEqual([]);
    }
  });
});

describe('the edge host router', () => {
  const prefix = 'site-uuid/build-uuid';
  type Routed = { uri?: string; statusCode?: number };
  const route = async (host: string, uri: string): Promise<Routed> => {
    const code = edgeHostRouterCode('kvs-id').replace("import cf from 'cloudfront';", '');
    const mapping: Record<string, string> = { 'web.sites.example.org': prefix };
    const cf = {
      kvs: () => ({ get: async (key: string) => (key in mapping ? mapping[key] : Promise.reject(new Error('key not found'))) }),
    };
    const handler = new Function('cf', `${code}\nreturn handler;`)(cf) as (event: unknown) => Promise<Routed>;
    return handler({ request: { uri, headers: { host: { value: host } } } });
  };

  it.each(['/', '/assets/app.5e1f7c2a.js', '/docs/', '/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt', '/.well-known/security.txt', '/--x/a.js'])(
    'rewrites %s to the same key the hosting group stored',
    async (uri) => {
      const routed = await route('WEB.sites.example.org', uri);

      expect(routed.uri).toBe(`/${buildFileKey(prefix, requestedSegments(uri)!)}`);
    },
  );

  it('sends client-side routes to index.html and refuses unknown hosts and escapes with 404', async () => {
    expect((await route('web.sites.example.org', '/dashboard/settings')).uri).toBe(`/${prefix}/index.html`);
    expect((await route('other.sites.example.org', '/')).statusCode).toBe(404);
    expect((await route('web.sites.example.org', '/../../etc/passwd')).statusCode).toBe(404);
    expect((await route('web.sites.example.org', '/%2e%2e/x.js')).statusCode).toBe(404);
    expect((await route('web.sites.example.org', '/%E0%A4%A')).statusCode).toBe(404);
  });
});

describe('user event delivery', () => {
  it('queues POST events with a dead-letter queue after three receives, consumed with partial batch failures', () => {
    const queues = resourcesOf(synthesized.api, 'AWS::SQS::Queue');
    const withRedrive = Object.values(queues).filter((queue) => queue.Properties?.RedrivePolicy !== undefined);

    expect(withRedrive).toHaveLength(1);
    expect(withRedrive[0]!.Properties!.RedrivePolicy).toMatchObject({ maxReceiveCount: 3 });
    synthesized.api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  it('runs PRE events on an Express state machine built from the ASL file', () => {
    const [machine] = Object.values(resourcesOf(synthesized.api, 'AWS::StepFunctions::StateMachine')).filter(
      (candidate) => candidate.Properties!.StateMachineType === 'EXPRESS',
    );

    expect(JSON.stringify(machine!.Properties!.DefinitionString)).toContain('RunSubscribers');
    expect(machine!.Properties!.DefinitionSubstitutions).toHaveProperty('FunctionRunnerArn');
  });

  it('gives whoever opens signing secrets (the events group, the PRE runner, the POST consumer) the secrets key', () => {
    for (const service of ['tessera-events', 'tessera-event-runner', 'tessera-event-consumer']) {
      const [id, fn] = Object.entries(tesseraFunctions(synthesized.api)).find(([, candidate]) => serviceNameOf(candidate) === service)!;
      const variables = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      const actions = statementsOfFunction(synthesized.api, id).flatMap(actionsOf);

      expect(variables.SECRETS_ENCRYPTION_KEY_SECRET_ARN, service).toBeDefined();
      expect(actions, service).toContain('secretsmanager:GetSecretValue');
    }
  });

  it('lets only the console function start PRE events and queue POST events', () => {
    for (const group of ['console', 'auth', 'data', 'hosting']) {
      const variables = (
        resourcesOf(synthesized.api)[functionIdOf(group)]!.Properties!.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      const actions = statementsOfFunction(synthesized.api, functionIdOf(group)).flatMap(actionsOf);
      if (group === 'console') {
        expect(variables.PRE_EVENT_STATE_MACHINE_ARN).toBeDefined();
        expect(variables.POST_EVENT_QUEUE_URL).toBeDefined();
        expect(actions).toEqual(expect.arrayContaining(['states:StartSyncExecution', 'sqs:SendMessage']));
      } else {
        expect(variables.PRE_EVENT_STATE_MACHINE_ARN).toBeUndefined();
        expect(actions).not.toContain('states:StartSyncExecution');
      }
    }
  });
});
