// SQL of a site's object records. Tables are named through `tenantTable` (the schema comes from
// the resolved site only); every value is a bound parameter. Only `complete` uploads are objects to
// readers; `pending` rows belong to uploads still on their way.
import { countedPage, pageWindowSql, type CountedPage } from '#shared/db/counted-page.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import type { Visibility } from '../buckets/bucket-schemas.ts';
import type { StorageCaller } from '../storage-env.ts';
import { listConditions, orderTerms, searchConditions, searchOrder } from './object-filter-sql.ts';
import type { ListObjectsQuery, SearchBody } from './object-schemas.ts';

export type ObjectRow = {
  id: number;
  uuid: string;
  bucket_id: number;
  filename: string;
  file_path: string;
  storage_key: string;
  /** bigint: a string on postgres.js; read through Number(). */
  size: number | string;
  mimetype: string;
  etag: string;
  metadata: Record<string, unknown>;
  visibility: Visibility | null;
  upload_status: 'complete' | 'pending';
  created_at: unknown;
  updated_at: unknown;
  created_by: number | null;
  modified_by: number | null;
};

const COLUMNS = sql.raw(`o.id, o.uuid::text as uuid, o.bucket_id, o.filename, o.file_path, o.storage_key, o.size, o.mimetype,
  o.etag, o.metadata, o.visibility, o.upload_status, o.created_at, o.updated_at, o.created_by, o.modified_by`);

function objects(site: Site): SQL {
  return sql`${tenantTable(site, 'objects')} o`;
}

/** Who reads a bucket's objects, and the bucket's visibility, which objects without their own inherit. */
export interface ObjectViewer {
  caller: StorageCaller;
  bucketVisibility: Visibility;
}

/**
 * Objects the caller may see (DECISIONS): an object's own visibility, else its bucket's; public
 * ones for anyone, private ones for their owner and for staff.
 */
function visibleTo({ caller, bucketVisibility }: ObjectViewer): SQL {
  if (caller.staff) return sql`true`;
  const isPublic = sql`coalesce(o.visibility, ${bucketVisibility}) = 'public'`;
  return caller.userId === undefined ? isPublic : sql`(${isPublic} or o.created_by = ${caller.userId})`;
}

export async function findObject(db: Queryable, site: Site, bucketId: number, path: string): Promise<ObjectRow | undefined> {
  const [row] = await db.rows<ObjectRow>(sql`select ${COLUMNS} from ${objects(site)}
    where o.bucket_id = ${bucketId} and o.file_path = ${path} and o.upload_status = 'complete'`);
  return row;
}

/** The object at a path, locked until the transaction ends (pending uploads to it are not objects). */
export async function lockObject(tx: Queryable, site: Site, bucketId: number, path: string): Promise<ObjectRow | undefined> {
  const [row] = await tx.rows<ObjectRow>(sql`select ${COLUMNS} from ${objects(site)}
    where o.bucket_id = ${bucketId} and o.file_path = ${path} and o.upload_status = 'complete' for update`);
  return row;
}

export async function findObjectById(db: Queryable, site: Site, id: number): Promise<ObjectRow> {
  const [row] = await db.rows<ObjectRow>(sql`select ${COLUMNS} from ${objects(site)} where o.id = ${id}`);
  return row!;
}

export interface StoredContent {
  storageKey: string;
  size: number;
  mimetype: string;
  etag: string;
}

export interface NewObject extends StoredContent {
  bucketId: number;
  path: string;
  filename: string;
  metadata: Record<string, unknown>;
  visibility: Visibility | null;
  userId: number;
}

/** Inserts the record; undefined when the path was taken meanwhile. */
export async function insertObject(tx: Queryable, site: Site, values: NewObject): Promise<number | undefined> {
  const [row] = await tx.rows<{ id: number }>(sql`insert into ${tenantTable(site, 'objects')}
      (bucket_id, filename, file_path, storage_key, size, mimetype, etag, metadata, visibility, created_by)
    values (${values.bucketId}, ${values.filename}, ${values.path}, ${values.storageKey}, ${values.size}, ${values.mimetype},
      ${values.etag}, ${JSON.stringify(values.metadata)}::jsonb, ${values.visibility}, ${values.userId})
    on conflict (bucket_id, file_path) where upload_status = 'complete' do nothing
    returning id`);
  return row?.id;
}

/** A presigned upload on its way: a `pending` row no reader sees, beside any object at its path. */
export async function insertPendingObject(tx: Queryable, site: Site, values: NewObject): Promise<number> {
  const [row] = await tx.rows<{ id: number }>(sql`insert into ${tenantTable(site, 'objects')}
      (bucket_id, filename, file_path, storage_key, size, mimetype, etag, metadata, visibility, created_by, upload_status)
    values (${values.bucketId}, ${values.filename}, ${values.path}, ${values.storageKey}, ${values.size}, ${values.mimetype},
      ${values.etag}, ${JSON.stringify(values.metadata)}::jsonb, ${values.visibility}, ${values.userId}, 'pending')
    returning id`);
  return row!.id;
}

/** The pending upload `uuid` to `path`; locked when `tx` asks for it, for the completion. */
export async function findPendingObject(
  db: Queryable,
  site: Site,
  where: { bucketId: number; path: string; uuid: string },
  options: { lock?: boolean } = {},
): Promise<ObjectRow | undefined> {
  const [row] = await db.rows<ObjectRow>(sql`select ${COLUMNS} from ${objects(site)}
    where o.bucket_id = ${where.bucketId} and o.file_path = ${where.path} and o.uuid = ${where.uuid}::uuid
      and o.upload_status = 'pending'${options.lock === true ? sql` for update` : sql``}`);
  return row;
}

/** The checked bytes of a pending upload make it the object at its path. */
export async function completePendingObject(tx: Queryable, site: Site, id: number, content: { size: number; etag: string }): Promise<void> {
  await tx.run(sql`update ${tenantTable(site, 'objects')}
    set size = ${content.size}, etag = ${content.etag}, upload_status = 'complete', updated_at = now()
    where id = ${id}`);
}

/** Removes the bucket's pending uploads begun more than `seconds` ago; answers their storage keys. */
export async function takeStalePendingObjects(tx: Queryable, site: Site, bucketId: number, seconds: number): Promise<string[]> {
  const rows = await tx.rows<{ storage_key: string }>(sql`delete from ${tenantTable(site, 'objects')}
    where bucket_id = ${bucketId} and upload_status = 'pending' and created_at < now() - make_interval(secs => ${seconds})
    returning storage_key`);
  return rows.map((row) => row.storage_key);
}

/** An upload onto an existing path: new bytes, name and metadata; it becomes complete. */
export async function replaceObjectContent(
  tx: Queryable,
  site: Site,
  id: number,
  values: StoredContent & { filename: string; metadata: Record<string, unknown>; userId: number },
): Promise<void> {
  await tx.run(sql`update ${tenantTable(site, 'objects')}
    set storage_key = ${values.storageKey}, size = ${values.size}, mimetype = ${values.mimetype}, etag = ${values.etag},
      filename = ${values.filename}, metadata = ${JSON.stringify(values.metadata)}::jsonb, upload_status = 'complete',
      modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

export async function updateObjectFields(
  tx: Queryable,
  site: Site,
  id: number,
  values: { filename: string; metadata: Record<string, unknown>; visibility: Visibility | null; userId: number },
): Promise<void> {
  await tx.run(sql`update ${tenantTable(site, 'objects')}
    set filename = ${values.filename}, metadata = ${JSON.stringify(values.metadata)}::jsonb, visibility = ${values.visibility},
      modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

/** A move: the same record (and UUID) under another path, maybe in another bucket with other bytes. */
export async function relocateObject(
  tx: Queryable,
  site: Site,
  id: number,
  values: { bucketId: number; path: string; filename: string; storageKey: string; userId: number },
): Promise<void> {
  await tx.run(sql`update ${tenantTable(site, 'objects')}
    set bucket_id = ${values.bucketId}, file_path = ${values.path}, filename = ${values.filename},
      storage_key = ${values.storageKey}, modified_by = ${values.userId}, updated_at = now()
    where id = ${id}`);
}

export async function deleteObjectRecords(tx: Queryable, site: Site, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.run(sql`delete from ${tenantTable(site, 'objects')} where id = any(${sql.param(ids.map(String))}::int[])`);
}

/** Records at these paths that the caller may see, locked for the delete that follows. */
export function lockVisibleObjects(
  tx: Queryable,
  site: Site,
  bucketId: number,
  paths: readonly string[],
  viewer: ObjectViewer,
): Promise<ObjectRow[]> {
  return tx.rows<ObjectRow>(sql`select ${COLUMNS} from ${objects(site)}
    where o.bucket_id = ${bucketId} and o.file_path = any(${sql.param([...paths])}::text[])
      and o.upload_status = 'complete' and ${visibleTo(viewer)}
    for update`);
}

export type ObjectKey = {
  id: number;
  storage_key: string;
};

/** The next records of the bucket to remove, pending ones included. */
export function objectKeyBatch(db: Queryable, site: Site, bucketId: number, limit: number): Promise<ObjectKey[]> {
  return db.rows<ObjectKey>(sql`select o.id, o.storage_key from ${objects(site)}
    where o.bucket_id = ${bucketId} order by o.id limit ${limit}`);
}

/** Deletes the batch's records that still point at the keys of the batch. */
export async function deleteObjectBatch(db: Queryable, site: Site, batch: readonly ObjectKey[]): Promise<void> {
  if (batch.length === 0) return;
  await db.run(sql`delete from ${tenantTable(site, 'objects')} o
    using unnest(${sql.param(batch.map((row) => String(row.id)))}::int[], ${sql.param(batch.map((row) => row.storage_key))}::text[])
      as removed(id, storage_key)
    where o.id = removed.id and o.storage_key = removed.storage_key`);
}

interface ObjectQuery {
  bucketId: number;
  conditions: SQL[];
  /** SQL order terms from a fixed set of columns. */
  orderBy: SQL;
}

/** A page of the bucket's objects the viewer may see, matching the list filters, with its total as `_count` asks. */
export function listObjectRecords(
  db: Queryable,
  site: Site,
  bucketId: number,
  viewer: ObjectViewer,
  query: ListObjectsQuery,
  page: PageRequest,
): Promise<CountedPage<ObjectRow>> {
  const conditions = [visibleTo(viewer), ...listConditions(query, viewer.caller, viewer.bucketVisibility)];
  return pageOfObjects(db, site, { bucketId, conditions, orderBy: orderTerms(query.ordering ?? []) }, page);
}

/** The search endpoint's window of the bucket's objects the viewer may see, with the exact total. */
export function searchObjectRecords(
  db: Queryable,
  site: Site,
  bucketId: number,
  viewer: ObjectViewer,
  body: SearchBody,
): Promise<{ rows: ObjectRow[]; total: number }> {
  const conditions = [visibleTo(viewer), ...searchConditions(body)];
  return queryObjects(db, site, { bucketId, conditions, orderBy: searchOrder(body) }, { limit: body.limit, offset: body.offset });
}

/** The complete objects matching every condition: a window of them, and all of them (to count). */
function objectQuerySql(site: Site, query: ObjectQuery) {
  const where = sql.join([sql`o.bucket_id = ${query.bucketId}`, sql`o.upload_status = 'complete'`, ...query.conditions], sql` and `);
  return {
    window: (window: SQL) => sql`select ${COLUMNS} from ${objects(site)} where ${where}
      order by ${query.orderBy} ${window}`,
    matches: sql`select 1 from ${objects(site)} where ${where}`,
  };
}

/** A window of complete objects matching every condition, with the exact total (a search's). */
async function queryObjects(
  db: Queryable,
  site: Site,
  query: ObjectQuery,
  window: { limit: number; offset: number },
): Promise<{ rows: ObjectRow[]; total: number }> {
  const statements = objectQuerySql(site, query);
  const [rows, counted] = await Promise.all([
    db.rows<ObjectRow>(statements.window(pageWindowSql(window.limit, window.offset))),
    db.rows<{ total: number }>(sql`select count(*)::int as total from (${statements.matches}) m`),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

/** A page of complete objects matching every condition, with its total as `_count` asks. */
async function pageOfObjects(db: Queryable, site: Site, query: ObjectQuery, page: PageRequest): Promise<CountedPage<ObjectRow>> {
  const statements = objectQuerySql(site, query);
  return countedPage(db, page, ({ window }) => db.rows<ObjectRow>(statements.window(window)), statements.matches);
}
