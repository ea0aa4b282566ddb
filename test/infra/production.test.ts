// The production-grade parts of the CDK app: cdk-nag's AwsSolutions checks pass with every
// remaining finding answered in code (and an unanswered one fails the synth), the secrets key and
// the database survive a stack delete together, functions have no AWS managed policies and trace
// with X-Ray, the API has an access log and alarms, and the platform domain is wired only when
// its context is given.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTesseraApp } from '#infra/aws/tessera-app.ts';
import { ALARM_THRESHOLDS } from '#infra/aws/observability.ts';
import { resourcesOf, synthesizeTessera, tesseraFunctions, type SynthesizedApp } from './synth.ts';

const DOMAIN_CONTEXT = { 'tessera:platformDomain': 'tessera.example.com', 'tessera:hostedZoneId': 'Z0123456789ABCDEFGHIJ' };

let synthesized: SynthesizedApp;
let withDomain: SynthesizedApp;
let outdir: string;
beforeAll(() => {
  synthesized = synthesizeTessera();
  withDomain = synthesizeTessera(DOMAIN_CONTEXT);
  outdir = mkdtempSync(path.join(tmpdir(), 'tessera-nag-'));
}, 240_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }>;
  }>;
}

function nagFindings(): Array<{ rule: string; path: string }> {
  const report = JSON.parse(readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as ValidationReport;
  return report.pluginReports
    .filter((plugin) => plugin.pluginName === 'AwsSolutions')
    .flatMap((plugin) => plugin.violations.flatMap((v) => v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath }))));
}

describe('cdk-nag AwsSolutions', () => {
  it('leaves no finding unanswered, with and without the domain context', () => {
    // buildTesseraApp registers the checks, so the synths above ran them (the next test shows that
    // a finding fails the synth); this synth returns their assembly.
    for (const { stacks } of [synthesized, withDomain]) {
      const assembly = (stacks.api.node.root as App).synth();
      expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual([
        'TesseraApi',
        'TesseraData',
        'TesseraHosting',
        'TesseraNetwork',
        'TesseraStorage',
      ]);
    }
  });

  it('fails the synth on an unanswered finding, and answers only the wildcard of the bucket it names', { timeout: 120_000 }, () => {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stacks = buildTesseraApp(app);
    const unlogged = new Bucket(stacks.storage, 'Unlogged');
    stacks.api.functions
      .get('storage')!
      .addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [unlogged.arnForObjects('*')] }));
    expect(() => app.synth()).toThrow();
    const findings = nagFindings();
    expect(findings).toContainEqual({ rule: 'AwsSolutions-S1', path: 'TesseraStorage/Unlogged/Resource' });
    expect(findings).toContainEqual({
      rule: expect.stringMatching(/^AwsSolutions-IAM5\[Resource::TesseraStorage:ExportsOutputFnGetAttUnlogged/),
      path: 'TesseraApi/StorageFunctionRole/DefaultPolicy/Resource',
    });
    // The objects bucket's own wildcard, on the same policy, stays answered.
    expect(findings.filter((finding) => /Objects/.test(finding.rule))).toEqual([]);
  });
});

describe('what survives a stack delete', () => {
  it('keeps the secrets key like the database: retained, while the cluster leaves a snapshot and refuses deletion', () => {
    const secrets = resourcesOf(synthesized.data, 'AWS::SecretsManager::Secret') as Record<string, { DeletionPolicy?: string }>;
    const secretsKey = Object.entries(secrets).filter(([id]) => id.startsWith('PlatformSecretsSecretsKey'));
    expect(secretsKey).toHaveLength(1);
    expect(secretsKey[0]![1].DeletionPolicy).toBe('Retain');
    synthesized.data.hasResource('AWS::RDS::DBCluster', {
      DeletionPolicy: 'Snapshot',
      Properties: { DeletionProtection: true, EnableIAMDatabaseAuthentication: true },
    });
  });
});

describe('least privilege and tracing', () => {
  it('gives no role an AWS managed policy', () => {
    for (const template of [synthesized.api, synthesized.data, synthesized.network, synthesized.storage, synthesized.hosting]) {
      for (const role of Object.values(resourcesOf(template, 'AWS::IAM::Role'))) {
        expect(role.Properties?.ManagedPolicyArns ?? []).toEqual([]);
      }
    }
  });

  it('traces every function and state machine with X-Ray', () => {
    for (const template of [synthesized.api, synthesized.data]) {
      for (const fn of Object.values(tesseraFunctions(template))) {
        expect(fn.Properties!.TracingConfig).toEqual({ Mode: 'Active' });
      }
    }
    for (const machine of Object.values(resourcesOf(synthesized.api, 'AWS::StepFunctions::StateMachine'))) {
      expect(machine.Properties!.TracingConfiguration).toEqual({ Enabled: true });
    }
  });

  it('logs rejected VPC flows', () => {
    synthesized.network.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT', LogDestinationType: 'cloud-watch-logs' });
  });
});

describe('API observability', () => {
  it('writes an access log line per request', () => {
    const [stage] = Object.values(resourcesOf(synthesized.api, 'AWS::ApiGatewayV2::Stage'));
    const settings = stage!.Properties!.AccessLogSettings as { Format: string; DestinationArn: unknown };
    expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
  });

  it('alarms on 5xx, latency and dead letters through one topic', () => {
    const alarms = Object.values(resourcesOf(synthesized.api, 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties!);
    expect(alarms.map((alarm) => alarm.MetricName).sort()).toEqual(['5xx', 'ApproximateNumberOfMessagesVisible', 'Latency']);
    expect(alarms.find((alarm) => alarm.MetricName === '5xx')!.Threshold).toBe(ALARM_THRESHOLDS.serverErrors);
    const [topicId] = Object.keys(resourcesOf(synthesized.api, 'AWS::SNS::Topic'));
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
  });
});

describe('platform domain', () => {
  it('creates no certificate, domain names or records without the context', () => {
    for (const type of ['AWS::CertificateManager::Certificate', 'AWS::ApiGatewayV2::DomainName', 'AWS::Route53::RecordSet']) {
      expect(resourcesOf(synthesized.api, type)).toEqual({});
    }
  });

  it('serves the platform domain and its tenant hosts with one certificate and alias records', () => {
    const { api } = withDomain;
    api.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'tessera.example.com',
      SubjectAlternativeNames: ['*.tessera.example.com'],
      ValidationMethod: 'DNS',
    });
    const domainNames = Object.values(resourcesOf(api, 'AWS::ApiGatewayV2::DomainName')).map((domain) => domain.Properties!.DomainName);
    expect(domainNames.sort()).toEqual(['*.tessera.example.com', 'tessera.example.com']);
    expect(Object.keys(resourcesOf(api, 'AWS::ApiGatewayV2::ApiMapping'))).toHaveLength(2);
    const records = Object.values(resourcesOf(api, 'AWS::Route53::RecordSet')).map((record) => record.Properties!);
    expect(records.map((record) => [record.Name, record.Type, record.HostedZoneId]).sort()).toEqual([
      ['*.tessera.example.com.', 'A', 'Z0123456789ABCDEFGHIJ'],
      ['tessera.example.com.', 'A', 'Z0123456789ABCDEFGHIJ'],
    ]);
  });
});
