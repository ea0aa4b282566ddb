// The reads of the storage maintenance sweep: which sites exist, which of their buckets keep bytes
// in the object store, and which storage keys a record (or the discard queue) still points at.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite } from '#shared/db/sql-identifiers.ts';

export interface SiteOfStore extends SchemaScopedSite {
  uuid: string;
}

export async function sitesOfStore(db: Queryable): Promise<SiteOfStore[]> {
  const rows = await db.rows<{ uuid: string; schema_name: string }>(sql`select uuid, schema_name from platform.sites order by id`);
  return rows.map((row) => ({ uuid: row.uuid, schemaName: row.schema_name }));
}

/** The site's buckets whose bytes live in the object store (document libraries keep their own). */
export async function objectStoreBucketIds(db: Queryable, site: SchemaScopedSite): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(
    sql`select id from ${tenantTable(site, 'buckets')} where storage_provider = 'object_store' order by id`,
  );
  return rows.map((row) => Number(row.id));
}

/** Every storage key of the site that a record uses or the discard queue still holds. */
export async function referencedStorageKeys(db: Queryable, site: SchemaScopedSite): Promise<Set<string>> {
  const rows = await db.rows<{ storage_key: string }>(sql`select storage_key from ${tenantTable(site, 'objects')}
    union all select storage_key from ${tenantTable(site, 'object_discards')}`);
  return new Set(rows.map((row) => row.storage_key));
}
