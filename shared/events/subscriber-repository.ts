// SQL of a site's event subscribers: the active functions subscribed to an event, which publishing
// (PRE and POST, pre-events.ts and post-events.ts) invokes. Tables are named from the resolved site.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';

export interface EventFunction {
  id: number;
  name: string;
}

/** Active functions of the site subscribed to `event`, in subscription order. */
export async function subscribedFunctions(db: Queryable, site: Site, event: string): Promise<EventFunction[]> {
  const rows = await db.rows<{ id: number; name: string }>(sql`select f.id, f.name
    from ${tenantTable(site, 'event_subscribers')} s join ${tenantTable(site, 'functions')} f on f.id = s.function_id
    where s.event = ${event} and f.is_active order by s.created_at, s.id`);
  return rows.map((row) => ({ id: Number(row.id), name: row.name }));
}
