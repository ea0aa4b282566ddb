// The Tessera stacks and how they depend on each other: network → data (database, proxy, secrets,
// deploy migration) and storage (the object bucket) → API. Environment-agnostic, so synth needs no
// credentials and no AZ lookups. cdk-nag's AwsSolutions checks run on every synth of these stacks.
import type { App } from 'aws-cdk-lib';
import { endpointGroups, type EndpointGroup } from '#functions/groups.ts';
import { ApiStack } from './api-stack.ts';
import { DataStack } from './data-stack.ts';
import { HostingStack } from './hosting-stack.ts';
import { enableNagChecks } from './nag-checks.ts';
import { NetworkStack } from './network-stack.ts';
import { deploySettings } from './settings.ts';
import { StorageStack } from './storage-stack.ts';

export interface TesseraStacks {
  network: NetworkStack;
  data: DataStack;
  storage: StorageStack;
  hosting: HostingStack;
  api: ApiStack;
}

/**
 * Builds the stacks into `app`; tests call this with an app that skips bundling (and may hand in
 * groups of their own to see how a capability is wired).
 */
export function buildTesseraApp(
  app: App,
  groups: readonly Pick<EndpointGroup, 'name' | 'entry' | 'routes' | 'uses' | 'files' | 'servesApiDescription'>[] = endpointGroups,
): TesseraStacks {
  enableNagChecks(app);
  const settings = deploySettings(app.node);
  const network = new NetworkStack(app, 'TesseraNetwork');
  const data = new DataStack(app, 'TesseraData', { vpc: network.vpc, settings });
  const storage = new StorageStack(app, 'TesseraStorage', { settings });
  const hosting = new HostingStack(app, 'TesseraHosting', { settings });
  const api = new ApiStack(app, 'TesseraApi', {
    vpc: network.vpc,
    database: data.database,
    signingKey: data.secrets.signingKey,
    secretsKey: data.secrets.secretsKey,
    objects: storage.objects,
    hosting,
    settings,
    groups,
  });
  return { network, data, storage, hosting, api };
}
