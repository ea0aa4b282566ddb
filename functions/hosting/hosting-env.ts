// What the hosting services work with: the database, the builds store, where the edge learns
// which build a host serves, the site and its caller, and the hosting configuration. Routes build it from their request context.
import type { Principal } from '#shared/auth/principal.ts';
import type { HostingConfig } from '#shared/config.ts';
import type { Queryable } from '#shared/db/database.ts';
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { hostMappingsFor, type HostMappingStore } from '#shared/hosting/host-mappings.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export interface HostingEnv {
  db: Queryable;
  store: ObjectStore;
  hostMappings: HostMappingStore;
  site: Tenant;
  user: Principal;
  hosting: HostingConfig;
  platformDomain: string;
}

export async function hostingEnv(ctx: RequestContext): Promise<HostingEnv> {
  const { config } = ctx.runtime;
  return {
    db: ctx.runtime.db,
    store: await buildStoreFor(config.hosting),
    hostMappings: await hostMappingsFor(config.hosting),
    site: ctx.site,
    user: ctx.user,
    hosting: config.hosting,
    platformDomain: config.platformDomain,
  };
}
