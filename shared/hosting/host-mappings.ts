// Where the edge learns which build a host serves. The hosted domain registry in the database is
// the record; after a change to it commits (activation, roll back or forward, subdomain or domain
// change, delete), the hosting services hand the new host → build prefix pairs to this port.
// Deployed, they go to the CloudFront KeyValueStore the edge function reads
// (kvs-host-mappings.ts); locally, the dev server reads the registry itself, so the local store
// only makes this process forget what it remembered of those hosts.
import type { HostingConfig } from '#shared/config.ts';
import { forgetHostedDomains } from './hosted-domains.ts';

/** A host and the build prefix it now serves; `undefined` means it serves nothing any more. */
export interface HostMapping {
  host: string;
  buildPrefix: string | undefined;
}

/** The build prefix the registry gives a host right now (undefined: no worker claims it, or no build). */
export type CurrentBuildPrefix = (host: string) => Promise<string | undefined>;

export interface HostMappingStore {
  apply(mappings: readonly HostMapping[]): Promise<void>;
  /**
   * Brings these hosts' mappings back to what the registry says, reading `current` for each host
   * just before its write. A deleted site's purge uses it: its hosts go, unless another site has
   * claimed one since, whose mapping is then written (never removed under it).
   */
  refresh(hosts: readonly string[], current: CurrentBuildPrefix): Promise<void>;
}

const localHostMappings: HostMappingStore = {
  apply: async (mappings) => forgetHostedDomains(mappings.map((mapping) => mapping.host)),
  refresh: async (hosts) => forgetHostedDomains(hosts),
};

const opened = new Map<string, Promise<HostMappingStore>>();

async function openKvsHostMappings(kvsArn: string): Promise<HostMappingStore> {
  // Loaded only when deployed: the KeyValueStore client and its SigV4a signer stay out of local runs.
  const { KvsHostMappingStore } = await import('./kvs-host-mappings.ts');
  return new KvsHostMappingStore(kvsArn);
}

export function hostMappingsFor(config: Pick<HostingConfig, 'hostMapArn'>): Promise<HostMappingStore> {
  const { hostMapArn } = config;
  if (hostMapArn === undefined) return Promise.resolve(localHostMappings);
  let store = opened.get(hostMapArn);
  if (store === undefined) {
    store = openKvsHostMappings(hostMapArn);
    opened.set(hostMapArn, store);
  }
  return store;
}
