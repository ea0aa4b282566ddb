// cdk-nag's AwsSolutions checks on the whole app, and the two ways our constructs answer a finding
// they keep on purpose, always with a written reason, in code beside what it excuses. cdk-nag 3 is a
// CDK validation plugin: any finding left unanswered fails `npm run synth` (and every test that
// synthesizes the app).
import {
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** Metadata type of a finding answered by pattern (see `acknowledgeNagPattern`). */
const PATTERN_METADATA = 'tessera:nag-acknowledged-pattern';

interface PatternAcknowledgment {
  pattern: string;
  reason: string;
}

/**
 * Answers an AwsSolutions finding on `scope` (and what it contains). `rule` is the id as cdk-nag
 * prints it without the pack prefix, e.g. `AwsSolutions-APIG4` or `AwsSolutions-IAM5[Resource::*]`.
 */
export function acknowledgeNag(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::${rule}`, reason });
}

/**
 * Answers findings whose id is only known once references are resolved (an ARN imported from
 * another stack appears as its generated export name). The pattern matches the whole finding id.
 */
export function acknowledgeNagPattern(scope: IConstruct, pattern: RegExp, reason: string): void {
  const acknowledgment: PatternAcknowledgment = { pattern: pattern.source, reason };
  scope.node.addMetadata(PATTERN_METADATA, acknowledgment);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The IAM5 finding of a grant on every key of `bucket` (`<bucket arn>/*`), whether the bucket is
 * in the role's stack (`<Logical.Arn>`) or imported from its own (`Stack:ExportsOutputFnGetAtt<Logical>Arn<hash>`).
 */
export function bucketKeysWildcard(bucket: IBucket): RegExp {
  const stack = Stack.of(bucket);
  const logicalId = stack.getLogicalId(bucket.node.defaultChild as CfnBucket);
  const local = escapeRegExp(`<${logicalId}.Arn>`);
  const imported = `${escapeRegExp(`${stack.stackName}:ExportsOutputFnGetAtt${logicalId}Arn`)}[0-9A-F]+`;
  return new RegExp(`^AwsSolutions-IAM5\\[Resource::(?:${local}|${imported})/\\*\\]$`);
}

function patternsOn(construct: IConstruct): RegExp[] {
  const patterns: RegExp[] = [];
  for (let current: IConstruct | undefined = construct; current !== undefined; current = current.node.scope) {
    for (const entry of current.node.metadata) {
      if (entry.type === PATTERN_METADATA) patterns.push(new RegExp((entry.data as PatternAcknowledgment).pattern));
    }
  }
  return patterns;
}

/** AwsSolutionsChecks, minus the findings answered by `acknowledgeNagPattern`. */
class TesseraNagChecks implements IPolicyValidationPlugin {
  readonly name: string;
  private readonly checks: AwsSolutionsChecks;

  constructor(private readonly app: App) {
    this.checks = new AwsSolutionsChecks(app);
    this.name = this.checks.name;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = this.checks.validate(context);
    const byPath = new Map(this.app.node.findAll().map((construct) => [construct.node.path, construct]));
    const violations = report.violations
      .map((violation) => ({
        ...violation,
        violatingResources: violation.violatingResources.filter((resource) => {
          const construct = resource.constructPath === undefined ? undefined : byPath.get(resource.constructPath);
          return construct === undefined || !patternsOn(construct).some((pattern) => pattern.test(violation.ruleName));
        }),
      }))
      .filter((violation) => violation.violatingResources.length > 0);
    return { ...report, violations, success: violations.length === 0 };
  }
}

/** Runs the AwsSolutions pack when `app` synthesizes; a finding without an acknowledgment fails the synth. */
export function enableNagChecks(app: App): void {
  Validations.of(app).addPlugins(new TesseraNagChecks(app));
}
