// The storage maintenance sweep deployed: a Lambda of its own on an hourly EventBridge schedule,
// allowed to list the objects and builds buckets (to find a deleted site's bytes) besides the
// object actions every bucket binding gives.
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesOf, serviceNameOf, statementsOfFunction, synthesizeTessera, tesseraFunctions, type SynthesizedApp } from './synth.ts';

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizeTessera();
});

const sweepFunctionId = () =>
  Object.entries(tesseraFunctions(synthesized.api)).find(([, fn]) => serviceNameOf(fn) === 'tessera-storage-maintenance')![0];

describe('storage maintenance', () => {
  it('runs the sweep function every hour', () => {
    const rules = Object.values(resourcesOf(synthesized.api, 'AWS::Events::Rule')).filter(
      (rule) => rule.Properties?.ScheduleExpression === 'rate(1 hour)',
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties!.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [sweepFunctionId(), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 } }),
    ]);
  });

  it('may list both buckets and delete their objects', () => {
    const statements = statementsOfFunction(synthesized.api, sweepFunctionId());
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3:ListBucket', 's3:DeleteObject']));
    const listed = statements
      .filter((statement) => [statement.Action].flat().includes('s3:ListBucket'))
      .flatMap((statement) => [statement.Resource].flat().map((resource) => JSON.stringify(resource)));
    // The objects bucket (its binding lets it list too) and the builds bucket.
    expect(new Set(listed).size).toBe(2);
  });

  it("may remove a deleted site's hosts from the edge's KeyValueStore, and knows which one", () => {
    const fn = tesseraFunctions(synthesized.api)[sweepFunctionId()]!;
    const statements = statementsOfFunction(synthesized.api, sweepFunctionId());
    const kvs = statements.filter((statement) =>
      [statement.Action].flat().some((action) => String(action).startsWith('cloudfront-keyvaluestore:')),
    );
    expect(kvs.flatMap((statement) => [statement.Action].flat()).sort()).toEqual([
      'cloudfront-keyvaluestore:DeleteKey',
      'cloudfront-keyvaluestore:DescribeKeyValueStore',
      'cloudfront-keyvaluestore:PutKey',
    ]);
    expect(kvs.every((statement) => !JSON.stringify(statement.Resource).includes('*'))).toBe(true);
    expect(JSON.stringify(fn.Properties?.Environment)).toContain('HOSTING_KVS_ARN');
  });
});
