// What the storage services work with: the database, the object store, the site, who is calling
// and where the API is reached (for `file_url`). Routes build it from their request context.
import type { Queryable } from '#shared/db/database.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import type { RequestLog } from '#shared/logger.ts';
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

/** The stores of bucket bytes, one per `storage_provider`; see storeFor. */
export interface BucketStores {
  objectStore: ObjectStore;
  /** The site's document library; undefined when the platform has none configured. */
  documentStore?: ObjectStore;
}

export interface StorageEnv extends BucketStores {
  db: Queryable;
  site: Tenant;
  caller: StorageCaller;
  /** `https://host` of the request, for the API URLs of objects. */
  origin: string;
  log: RequestLog;
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

/** The stores of the request's site. */
export function bucketStores(ctx: RequestContext): BucketStores {
  return { objectStore: ctx.runtime.objectStore, documentStore: ctx.runtime.documentLibrary?.forSite(ctx.site.slug).store };
}

export function storageEnv(ctx: RequestContext): StorageEnv {
  return {
    db: ctx.runtime.db,
    ...bucketStores(ctx),
    site: ctx.site,
    caller: storageCaller(ctx.principal, ctx.hasSiteAccess),
    origin: ctx.request.origin,
    log: ctx.log,
  };
}
