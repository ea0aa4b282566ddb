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

/** Which of these storage keys of the site a record uses or the discard queue still holds. */
export async function referencedStorageKeys(db: Queryable, site: SchemaScopedSite, keys: readonly string[]): Promise<Set<string>> {
  const rows = await db.rows<{ storage_key: string }>(sql`select storage_key from ${tenantTable(site, 'objects')}
      where storage_key = any(${sql.param([...keys])}::text[])
    union all select storage_key from ${tenantTable(site, 'object_discards')}
      where storage_key = any(${sql.param([...keys])}::text[])`);
  return new Set(rows.map((row) => row.storage_key));
}

/** Where the named sweep stopped in its last run (a storage key), or undefined to start from the beginning. */
export async function sweepPosition(db: Queryable, name: string): Promise<string | undefined> {
  const [row] = await db.rows<{ position: string | null }>(sql`select position from platform.maintenance_cursors where name = ${name}`);
  return row?.position ?? undefined;
}

/** Keeps where the named sweep stopped; undefined: it went through to the end, the next run starts over. */
export async function keepSweepPosition(db: Queryable, name: string, position: string | undefined): Promise<void> {
  await db.run(sql`insert into platform.maintenance_cursors (name, position) values (${name}, ${position ?? null})
    on conflict (name) do update set position = excluded.position, updated_at = now()`);
}
