// The document library in the deployed stacks: the storage function gets the Graph settings from
// CDK context and may read the client secret; nothing else does, and without the context nobody does.
import { describe, expect, it } from 'vitest';
import { actionsOf, serviceNameOf, statementsOfFunction, synthesizeTessera, tesseraFunctions } from './synth.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tessera-graph-client-AbCdEf';
const context = {
  'tessera:graphTenantId': 'contoso-tenant-id',
  'tessera:graphClientId': 'graph-client-id',
  'tessera:graphClientSecretArn': SECRET_ARN,
  'tessera:graphSiteHostname': 'contoso.sharepoint.com',
};

function functionsByService(context: Record<string, string>) {
  const { api } = synthesizeTessera(context);
  return Object.entries(tesseraFunctions(api)).map(([id, fn]) => ({
    service: serviceNameOf(fn),
    variables: (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables,
    secretReads: statementsOfFunction(api, id).filter(
      (statement) =>
        actionsOf(statement).includes('secretsmanager:GetSecretValue') && JSON.stringify(statement.Resource).includes(SECRET_ARN),
    ),
  }));
}

describe('document library deployment', () => {
  it('gives the storage function the Graph settings and read access to the client secret, and no other function', () => {
    for (const fn of functionsByService(context)) {
      if (fn.service === 'tessera-storage') {
        expect(fn.variables).toMatchObject({
          GRAPH_TENANT_ID: 'contoso-tenant-id',
          GRAPH_CLIENT_ID: 'graph-client-id',
          GRAPH_CLIENT_SECRET_ARN: SECRET_ARN,
          GRAPH_SITE_HOSTNAME: 'contoso.sharepoint.com',
        });
        expect(fn.secretReads).toHaveLength(1);
      } else {
        expect(Object.keys(fn.variables).filter((name) => name.startsWith('GRAPH_'))).toEqual([]);
        expect(fn.secretReads).toEqual([]);
      }
    }
  });

  it('configures no document library without the context', () => {
    for (const fn of functionsByService({})) {
      expect(Object.keys(fn.variables).filter((name) => name.startsWith('GRAPH_'))).toEqual([]);
    }
  });

  it('refuses a partial Graph context, naming what is missing', () => {
    expect(() => synthesizeTessera({ 'tessera:graphClientId': 'graph-client-id' })).toThrow(
      /tessera:graphTenantId.*tessera:graphSiteHostname/,
    );
  });
});
