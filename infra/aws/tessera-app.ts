// The Tessera stacks and how they depend on each other: network → data (database, proxy, secrets,
// deploy migration) → API. Environment-agnostic, so synth needs no credentials and no AZ lookups.
import { App } from 'aws-cdk-lib';
import { endpointGroups } from '#functions/groups.ts';
import { ApiStack } from './api-stack.ts';
import { DataStack } from './data-stack.ts';
import { NetworkStack } from './network-stack.ts';
import { deploySettings } from './settings.ts';

export interface TesseraStacks {
  network: NetworkStack;
  data: DataStack;
  api: ApiStack;
}

/** Builds the stacks into `app`; tests call this with an app that skips bundling. */
export function buildTesseraApp(app: App): TesseraStacks {
  const settings = deploySettings(app.node);
  const network = new NetworkStack(app, 'TesseraNetwork');
  const data = new DataStack(app, 'TesseraData', { vpc: network.vpc, settings });
  const api = new ApiStack(app, 'TesseraApi', {
    vpc: network.vpc,
    database: data.database,
    signingKey: data.secrets.signingKey,
    secretsKey: data.secrets.secretsKey,
    settings,
    groups: endpointGroups,
  });
  return { network, data, api };
}
