// What the storage services work with: the database, the stores of bytes (the object store, and the
// document library when one is configured), the site, who is calling and where the API is reached
// (for `file_url`, from configuration). Routes build it from their request context.
import type { Config } from '#shared/config.ts';
import type { Queryable } from '#shared/db/database.ts';
import { sitePublicOrigin } from '#shared/http/public-url.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { RequestLog } from '#shared/logger.ts';
import type { DocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { Principal } from '#shared/auth/principal.ts';

/**
 * The caller as the object permission table sees it. `userId` is set only for a signed-in caller
 * with access to the site (an owner must be a member); staff (is_staff or superuser) reads any
 * object; writing needs a signed-in member.
 */
export interface StorageCaller {
  principal?: Principal;
  userId?: number;
  staff: boolean;
  member: boolean;
}

/** Where a bucket's bytes can live; `storeFor` picks one by the bucket's `storage_provider`. */
export interface ByteStores {
  objectStore: ObjectStore;
  /** The platform's document library; undefined when none is configured. */
  documentLibrary?: DocumentLibrary;
  site: Tenant;
}

export interface StorageEnv extends ByteStores {
  db: Queryable;
  caller: StorageCaller;
  /** The site's public API origin (PUBLIC_API_URL), for the API URLs of objects; never the request's Host. */
  origin: string;
  log: RequestLog;
  /** Presigned URL lifetime, and the largest object the API carries itself (presigned above it). */
  transfers: Config['transfers'];
}

export function storageCaller(principal: Principal | undefined, hasSiteAccess: boolean): StorageCaller {
  if (principal === undefined) return { staff: false, member: false };
  return {
    principal,
    userId: hasSiteAccess ? principal.id : undefined,
    staff: principal.isStaff || principal.isSuperuser,
    member: hasSiteAccess,
  };
}

export function storageEnv(ctx: RequestContext): StorageEnv {
  return {
    db: ctx.runtime.db,
    objectStore: ctx.runtime.objectStore,
    documentLibrary: ctx.runtime.documentLibrary,
    site: ctx.site,
    caller: storageCaller(ctx.principal, ctx.hasSiteAccess),
    origin: sitePublicOrigin(ctx.runtime.config, ctx.site.slug),
    log: ctx.log,
    transfers: ctx.runtime.config.transfers,
  };
}
