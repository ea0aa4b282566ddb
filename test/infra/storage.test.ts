import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups, type EndpointGroup } from '#functions/groups.ts';
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

// A group of our own that uses the object store, beside the real ones, so the wiring is shown
// whichever groups the route tables hold today.
const filesGroup: Pick<EndpointGroup, 'name' | 'entry' | 'routes' | 'uses'> = {
  name: 'files',
  entry: 'functions/data/handler.ts',
  routes: [],
  uses: ['object-store'],
};
const groups = [...endpointGroups, filesGroup];

let synthesized: SynthesizedApp;
let bucketId: string;
beforeAll(() => {
  synthesized = synthesizeTessera({ 'tessera:corsOrigins': 'https://console.example.org,https://admin.example.org' }, groups);
  const { storage } = synthesized.stacks;
  bucketId = storage.getLogicalId(storage.objects.node.defaultChild as never);
});

function environmentOf(groupName: string): Record<string, unknown> {
  const fn = Object.values(tesseraFunctions(synthesized.api)).find((candidate) => serviceNameOf(candidate) === `tessera-${groupName}`)!;
  return (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
}

function functionIdOf(groupName: string): string {
  return Object.entries(tesseraFunctions(synthesized.api)).find(([, fn]) => serviceNameOf(fn) === `tessera-${groupName}`)![0];
}

/** `{Fn::Join: ['', [<bucket arn>, '/*']]}` → `<bucket id>/*`; a plain reference → `<bucket id>`. */
function bucketResource(resource: unknown): string {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join === undefined) return referencedId(resource, synthesized.storage);
  const [first, ...rest] = join[1];
  return referencedId(first, synthesized.storage) + rest.join('');
}

describe('object bucket', () => {
  it('is encrypted, owner-enforced, versioned, and blocks every kind of public access', () => {
    synthesized.storage.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      VersioningConfiguration: { Status: 'Enabled' },
      WebsiteConfiguration: Match.absent(),
    });
  });

  it('is kept when the stack is deleted', () => {
    synthesized.storage.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('refuses requests without TLS, and TLS older than 1.2', () => {
    const [policy] = Object.values(resourcesOf(synthesized.storage, 'AWS::S3::BucketPolicy'));
    const statements = (policy!.Properties!.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
    expect(statements.filter((statement) => statement.Effect === 'Allow')).toEqual([]);
  });

  it('lets browsers on the configured origins PUT and GET through presigned URLs', () => {
    synthesized.storage.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedMethods: ['PUT', 'GET', 'HEAD'],
            AllowedOrigins: ['https://console.example.org', 'https://admin.example.org'],
            AllowedHeaders: ['Content-Type'],
            ExposedHeaders: Match.arrayWith(['ETag']),
          },
        ],
      },
    });
  });

  it('uses the application default origins when none are configured', () => {
    const defaults = synthesizeTessera();
    defaults.storage.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: { CorsRules: [Match.objectLike({ AllowedOrigins: ['http://localhost:3000', 'http://localhost:5173'] })] },
    });
  });

  it('keeps overwritten and deleted bytes for the 7 days of Aurora point-in-time recovery, then expires them', () => {
    synthesized.storage.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 7 }, ExpiredObjectDeleteMarker: true }),
        ]),
      },
    });
  });

  it('aborts multipart uploads left unfinished for a day', () => {
    synthesized.storage.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]),
      },
    });
  });

  it('is reached from the VPC through an S3 gateway endpoint, not the NAT gateway', () => {
    const endpoints = Object.values(resourcesOf(synthesized.network, 'AWS::EC2::VPCEndpoint'));
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]!.Properties).toMatchObject({ VpcEndpointType: 'Gateway' });
    expect(JSON.stringify(endpoints[0]!.Properties!.ServiceName)).toContain('.s3');
  });
});

describe('functions that use the object store', () => {
  it('get OBJECT_STORE=s3 and the bucket name; the others get neither', () => {
    for (const group of groups) {
      const environment = environmentOf(group.name);
      if (group.uses.includes('object-store')) {
        expect(environment.OBJECT_STORE).toBe('s3');
        expect(referencedId(environment.S3_BUCKET, synthesized.storage)).toBe(bucketId);
      } else {
        expect(environment.OBJECT_STORE).toBeUndefined();
        expect(environment.S3_BUCKET).toBeUndefined();
      }
    }
  });

  it('may read, write and delete objects of that bucket and list it, and nothing else in S3', () => {
    // The hosting group's grants on the builds bucket (another stack) are hosting.test.ts's to check.
    const onBuildsBucket = (statement: { Resource?: unknown }) => JSON.stringify(statement.Resource).includes('TesseraHosting:');
    for (const group of groups) {
      const s3Statements = statementsOfFunction(synthesized.api, functionIdOf(group.name))
        .filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:')))
        .filter((statement) => {
          if (!onBuildsBucket(statement)) return true;
          expect(group.uses, group.name).toContain('hosted-builds');
          return false;
        })
        .map((statement) => ({
          effect: statement.Effect,
          actions: actionsOf(statement).sort(),
          resource: bucketResource(statement.Resource),
        }));
      const expected = group.uses.includes('object-store')
        ? [
            {
              effect: 'Allow',
              actions: ['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject'],
              resource: `${bucketId}/*`,
            },
            { effect: 'Allow', actions: ['s3:ListBucket'], resource: bucketId },
          ]
        : [];
      expect(s3Statements).toEqual(expected);
    }
  });
});
