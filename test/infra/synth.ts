// Synthesizes the Tessera app the way `npm run synth` does (same cdk.json context) but without
// bundling, and offers lookups over the resulting templates for the infra tests.
import { readFileSync } from 'node:fs';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildTesseraApp, type TesseraStacks } from '#infra/aws/tessera-app.ts';

export type Resource = { Type: string; Properties?: Record<string, unknown>; DependsOn?: string[] };
export type Resources = Record<string, Resource>;

export interface SynthesizedApp {
  stacks: TesseraStacks;
  data: Template;
  storage: Template;
  hosting: Template;
  api: Template;
  network: Template;
}

function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export function synthesizeTessera(context: Record<string, unknown> = {}, groups?: Parameters<typeof buildTesseraApp>[1]): SynthesizedApp {
  const app = new App({ context: { ...cdkJsonContext(), ...context, 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildTesseraApp(app, groups);
  // One synth (with the cdk-nag checks) for all five templates: Template.fromStack would
  // synthesize, and check, the whole app once per stack.
  const assembly = app.synth();
  const templateOf = (stack: Stack): Template => Template.fromJSON(assembly.getStackByName(stack.stackName).template);
  return {
    stacks,
    data: templateOf(stacks.data),
    storage: templateOf(stacks.storage),
    hosting: templateOf(stacks.hosting),
    api: templateOf(stacks.api),
    network: templateOf(stacks.network),
  };
}

export function resourcesOf(template: Template, type?: string): Resources {
  const all = template.toJSON().Resources as Resources;
  return Object.fromEntries(Object.entries(all).filter(([, resource]) => type === undefined || resource.Type === type));
}

/** Our functions carry POWERTOOLS_SERVICE_NAME; CDK's own (the trigger provider) do not. */
export function tesseraFunctions(template: Template): Resources {
  return Object.fromEntries(
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([, fn]) => {
      const environment = fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined;
      return environment?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined;
    }),
  );
}

export function serviceNameOf(fn: Resource): string {
  return (fn.Properties!.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME!;
}

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Statements of every inline policy attached to the role of `functionId`. */
export function statementsOfFunction(template: Template, functionId: string): PolicyStatement[] {
  const fn = resourcesOf(template)[functionId]!;
  const roleRef = fn.Properties!.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = roleRef['Fn::GetAtt'][0];
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((role) => role.Ref === roleId))
    .flatMap((policy) => (policy.Properties!.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
}

export function actionsOf(statement: PolicyStatement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/**
 * The logical id a value refers to in the producing stack: `{Ref: id}` or `{Fn::GetAtt: [id, …]}`
 * directly, or an `Fn::ImportValue` followed to the producer's output.
 */
export function referencedId(value: unknown, producer: Template): string {
  const shaped = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::ImportValue'?: string };
  if (typeof shaped.Ref === 'string') return shaped.Ref;
  if (Array.isArray(shaped['Fn::GetAtt'])) return shaped['Fn::GetAtt'][0];
  const exportName = shaped['Fn::ImportValue'];
  if (typeof exportName !== 'string') throw new Error(`Not a reference: ${JSON.stringify(value)}`);
  const outputs = producer.toJSON().Outputs as Record<string, { Value: unknown; Export?: { Name: string } }>;
  const output = Object.values(outputs).find((candidate) => candidate.Export?.Name === exportName);
  if (output === undefined) throw new Error(`No output exports ${exportName}`);
  return referencedId(output.Value, producer);
}
