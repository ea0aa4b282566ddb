// The queue of storage keys whose bytes no record uses any more (`object_discards`): filled by the
// transaction that drops the reference, emptied once the store has removed the bytes (stored-bytes.ts).
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite } from '#shared/db/sql-identifiers.ts';

export type QueuedDiscard = {
  id: number | string;
  storage_key: string;
};

/** Queues keys for removal, inside the transaction that stops referencing them. */
export async function queueDiscards(tx: Queryable, site: SchemaScopedSite, bucketId: number, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.run(sql`insert into ${tenantTable(site, 'object_discards')} (bucket_id, storage_key)
    select ${bucketId}, key from unnest(${sql.param([...keys])}::text[]) as key`);
}

/** The oldest queued keys of a bucket, at most `limit` of them. */
export async function queuedDiscards(db: Queryable, site: SchemaScopedSite, bucketId: number, limit: number): Promise<QueuedDiscard[]> {
  return db.rows<QueuedDiscard>(sql`select id, storage_key
    from ${tenantTable(site, 'object_discards')} where bucket_id = ${bucketId} order by id limit ${limit}`);
}

export async function deleteQueuedDiscards(db: Queryable, site: SchemaScopedSite, discards: readonly QueuedDiscard[]): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'object_discards')}
    where id = any(${sql.param(discards.map((row) => String(row.id)))}::bigint[])`);
}
