// SQL of event subscribers (tenant schema): a function subscribes to an event once.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

type Site = Pick<Tenant, 'schemaName'>;

export interface SubscriberRow {
  id: number;
  event: string;
  functionId: number;
  functionName: string;
  functionSlug: string;
  appId: number;
  appName: string;
  appSlug: string;
  createdAt: Date;
  updatedAt: Date;
}

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

function selectSubscribers(site: Site) {
  return sql`select s.id, s.event, s.function_id, s.created_at, s.updated_at, f.name as function_name, f.slug as function_slug,
      a.id as app_id, a.name as app_name, a.slug as app_slug
    from ${tenantTable(site, 'event_subscribers')} s
    join ${tenantTable(site, 'functions')} f on f.id = s.function_id
    join ${tenantTable(site, 'apps')} a on a.id = f.app_id`;
}

function subscriberOf(row: Record<string, unknown>): SubscriberRow {
  return {
    id: Number(row.id),
    event: String(row.event),
    functionId: Number(row.function_id),
    functionName: String(row.function_name),
    functionSlug: String(row.function_slug),
    appId: Number(row.app_id),
    appName: String(row.app_name),
    appSlug: String(row.app_slug),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Inserts the subscription; undefined when the function already subscribes to the event. */
export async function insertSubscriber(db: Queryable, site: Site, event: string, functionId: number): Promise<SubscriberRow | undefined> {
  const [row] = await db.rows<{ id: number }>(sql`insert into ${tenantTable(site, 'event_subscribers')} (event, function_id)
    values (${event}, ${functionId}) on conflict (event, function_id) do nothing returning id`);
  if (row === undefined) return undefined;
  const [subscriber] = await db.rows(sql`${selectSubscribers(site)} where s.id = ${row.id}`);
  return subscriberOf(subscriber!);
}

export async function deleteSubscriber(db: Queryable, site: Site, event: string, functionId: number): Promise<boolean> {
  return (
    (await db.run(sql`delete from ${tenantTable(site, 'event_subscribers')} where event = ${event} and function_id = ${functionId}`)) > 0
  );
}

/** Subscribers of an event, of one app or of the whole site, oldest first. */
export async function subscribersOf(db: Queryable, site: Site, event: string, appId?: number): Promise<SubscriberRow[]> {
  const appFilter = appId === undefined ? sql`` : sql` and a.id = ${appId}`;
  const rows = await db.rows(sql`${selectSubscribers(site)} where s.event = ${event}${appFilter} order by s.created_at, s.id`);
  return rows.map(subscriberOf);
}
