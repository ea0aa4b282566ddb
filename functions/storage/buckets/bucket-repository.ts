// SQL of a site's buckets. Tables are named through `tenantTable` (the schema comes from the
// resolved site only); every value is a bound parameter.
import { countedPage, type CountedPage } from '#shared/db/counted-page.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';
import type { AppCategory, BucketOrderingField, StorageProvider, Visibility } from './bucket-schemas.ts';

export type { StorageProvider } from './bucket-schemas.ts';

export type BucketRow = {
  id: number;
  uuid: string;
  app_id: number;
  app_slug: string;
  name: string;
  slug: string;
  visibility: Visibility;
  /** bigint: a string on postgres.js; read through Number(). */
  file_size_limit: number | string;
  allowed_mime_types: string[];
  app_category: AppCategory;
  storage_provider: StorageProvider;
  object_count: number;
  created_at: unknown;
  updated_at: unknown;
  created_by: number | null;
  modified_by: number | null;
};

export interface AppRef {
  id: number;
  slug: string;
}

/** An active app of the site (soft-deleted apps have no storage). */
export async function findActiveApp(db: Queryable, site: Site, slug: string): Promise<AppRef | undefined> {
  const [row] = await db.rows<{ id: number; slug: string }>(
    sql`select id, slug from ${tenantTable(site, 'apps')} where slug = ${slug} and deleted_at is null`,
  );
  return row;
}

function bucketSelect(site: Site): SQL {
  return sql`select b.id, b.uuid::text as uuid, b.app_id, a.slug as app_slug, b.name, b.slug, b.visibility,
      b.file_size_limit, b.allowed_mime_types, b.app_category, b.storage_provider,
      (select count(*)::int from ${tenantTable(site, 'objects')} o where o.bucket_id = b.id and o.upload_status = 'complete') as object_count,
      b.created_at, b.updated_at, b.created_by, b.modified_by
    from ${tenantTable(site, 'buckets')} b join ${tenantTable(site, 'apps')} a on a.id = b.app_id`;
}

export async function findBucket(db: Queryable, site: Site, appId: number, slug: string): Promise<BucketRow | undefined> {
  const [row] = await db.rows<BucketRow>(sql`${bucketSelect(site)} where b.app_id = ${appId} and b.slug = ${slug}`);
  return row;
}

export async function findBucketById(db: Queryable, site: Site, id: number): Promise<BucketRow | undefined> {
  const [row] = await db.rows<BucketRow>(sql`${bucketSelect(site)} where b.id = ${id}`);
  return row;
}

export interface BucketFilter {
  search?: string;
  visibility?: Visibility;
  appCategory?: AppCategory;
  ordering: Array<{ field: BucketOrderingField; descending: boolean }>;
}

const ORDER_EXPRESSIONS: Record<BucketOrderingField, string> = {
  name: 'name',
  slug: 'slug',
  created_at: 'created_at',
  updated_at: 'updated_at',
  visibility: 'visibility',
  app_category: 'app_category',
  file_size_limit: 'file_size_limit',
  object_count: 'object_count',
  id: 'id',
};

export async function listBuckets(
  db: Queryable,
  site: Site,
  appId: number,
  filter: BucketFilter,
  page: PageRequest,
): Promise<CountedPage<BucketRow>> {
  const conditions: SQL[] = [sql`b.app_id = ${appId}`];
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(sql`(b.name ilike ${pattern} or b.slug ilike ${pattern})`);
  }
  if (filter.visibility !== undefined) conditions.push(sql`b.visibility = ${filter.visibility}`);
  if (filter.appCategory !== undefined) conditions.push(sql`b.app_category = ${filter.appCategory}`);
  const where = sql.join(conditions, sql` and `);
  const ordering = filter.ordering.length > 0 ? filter.ordering : [{ field: 'name' as const, descending: false }];
  // The names come from the fixed table above, never from the request.
  const orderBy = sql.raw(
    [...ordering.map(({ field, descending }) => `${ORDER_EXPRESSIONS[field]} ${descending ? 'desc' : 'asc'}`), 'id asc'].join(', '),
  );
  return countedPage(
    db,
    page,
    ({ window }) =>
      db.rows<BucketRow>(sql`select * from (${bucketSelect(site)} where ${where}) listed
      order by ${orderBy} ${window}`),
    sql`select 1 from ${tenantTable(site, 'buckets')} b where ${where}`,
  );
}

export async function slugsLike(db: Queryable, site: Site, appId: number, base: string): Promise<string[]> {
  const rows = await db.rows<{ slug: string }>(sql`select slug from ${tenantTable(site, 'buckets')}
    where app_id = ${appId} and (slug = ${base} or slug like ${`${base}-%`})`);
  return rows.map((row) => row.slug);
}

export interface BucketValues {
  name: string;
  visibility: Visibility;
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  appCategory: AppCategory;
}

export async function insertBucket(
  db: Queryable,
  site: Site,
  appId: number,
  values: BucketValues & { slug: string; userId: number; storageProvider: StorageProvider },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`insert into ${tenantTable(site, 'buckets')}
      (app_id, name, slug, visibility, file_size_limit, allowed_mime_types, app_category, storage_provider, created_by)
    values (${appId}, ${values.name}, ${values.slug}, ${values.visibility}, ${values.fileSizeLimit},
      ${sql.param(values.allowedMimeTypes)}::text[], ${values.appCategory}, ${values.storageProvider}, ${values.userId})
    returning id`);
  return row!.id;
}

export async function updateBucket(db: Queryable, site: Site, id: number, values: BucketValues & { userId: number }): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'buckets')}
    set name = ${values.name}, visibility = ${values.visibility}, file_size_limit = ${values.fileSizeLimit},
      allowed_mime_types = ${sql.param(values.allowedMimeTypes)}::text[], app_category = ${values.appCategory},
      modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

/**
 * Deletes the bucket when neither an object record nor a queued discard is left in it; false when
 * one is (an upload or replacement that landed meanwhile).
 */
export async function deleteEmptyBucket(db: Queryable, site: Site, id: number): Promise<boolean> {
  const deleted = await db.run(sql`delete from ${tenantTable(site, 'buckets')} b
    where b.id = ${id}
      and not exists (select 1 from ${tenantTable(site, 'objects')} o where o.bucket_id = b.id)
      and not exists (select 1 from ${tenantTable(site, 'object_discards')} d where d.bucket_id = b.id)`);
  return deleted > 0;
}
