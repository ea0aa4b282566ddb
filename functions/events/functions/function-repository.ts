// SQL of an app's functions and their invocation records (tenant schema).
import { countedPage, type CountedPage, type PageRead } from '#shared/db/counted-page.ts';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { SealedValue } from '#shared/crypto/secret-box.ts';
import { storedSigningSecretOf, type StoredSigningSecret } from '#shared/events/signing-secrets.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

type Site = Pick<Tenant, 'schemaName'>;

export interface AppRef {
  id: number;
  name: string;
  slug: string;
}

export interface FunctionRow {
  id: number;
  appId: number;
  appSlug: string;
  appName: string;
  name: string;
  slug: string;
  executionMode: string;
  webhookUrl: string;
  /** As stored: the service opens it (shared/events/signing-secrets.ts). */
  storedSecret: StoredSigningSecret;
  timeoutSeconds: number;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface InvocationRow {
  invocationId: string;
  taskId: string;
  event: string;
  status: string;
  startedAt: Date | null;
  completedAt: Date | null;
  error: string | null;
}

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const toDateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : toDate(value));

function functionOf(row: Record<string, unknown>): FunctionRow {
  return {
    id: Number(row.id),
    appId: Number(row.app_id),
    appSlug: String(row.app_slug),
    appName: String(row.app_name),
    name: String(row.name),
    slug: String(row.slug),
    executionMode: String(row.execution_mode),
    webhookUrl: String(row.webhook_url),
    storedSecret: storedSigningSecretOf(row),
    timeoutSeconds: Number(row.timeout_seconds),
    isActive: Boolean(row.is_active),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function selectFunctions(site: Site) {
  return sql`select f.*, a.slug as app_slug, a.name as app_name from ${tenantTable(site, 'functions')} f join ${tenantTable(site, 'apps')} a on a.id = f.app_id`;
}

export async function findApp(db: Queryable, site: Site, slug: string): Promise<AppRef | undefined> {
  const [row] = await db.rows<{ id: number; name: string; slug: string }>(
    sql`select id, name, slug from ${tenantTable(site, 'apps')} where slug = ${slug} and deleted_at is null`,
  );
  return row === undefined ? undefined : { id: Number(row.id), name: row.name, slug: row.slug };
}

export async function listFunctions(db: Queryable, site: Site, appId: number, page: PageRequest): Promise<CountedPage<FunctionRow>> {
  const readPage = async ({ window }: PageRead) =>
    (await db.rows(sql`${selectFunctions(site)} where f.app_id = ${appId} order by f.created_at, f.id ${window}`)).map(functionOf);
  return countedPage(db, page, readPage, sql`select 1 from ${tenantTable(site, 'functions')} where app_id = ${appId}`);
}

export async function findFunction(db: Queryable, site: Site, appId: number, slug: string): Promise<FunctionRow | undefined> {
  const [row] = await db.rows(sql`${selectFunctions(site)} where f.app_id = ${appId} and f.slug = ${slug}`);
  return row === undefined ? undefined : functionOf(row);
}

export async function findFunctionById(db: Queryable, site: Site, id: number): Promise<FunctionRow | undefined> {
  const [row] = await db.rows(sql`${selectFunctions(site)} where f.id = ${id}`);
  return row === undefined ? undefined : functionOf(row);
}

export async function functionSlugsLike(db: Queryable, site: Site, appId: number, base: string): Promise<string[]> {
  const rows = await db.rows<{ slug: string }>(
    sql`select slug from ${tenantTable(site, 'functions')} where app_id = ${appId} and slug like ${`${base}%`}`,
  );
  return rows.map((row) => row.slug);
}

export async function insertFunction(
  db: Queryable,
  site: Site,
  id: number,
  values: {
    appId: number;
    name: string;
    slug: string;
    webhookUrl: string;
    sealedSecret: SealedValue;
    timeoutSeconds: number;
    isActive: boolean;
    createdBy: number;
  },
): Promise<void> {
  await db.run(sql`
    insert into ${tenantTable(site, 'functions')} (id, app_id, name, slug, execution_mode, webhook_url, signing_secret, signing_secret_sealed, timeout_seconds, is_active, created_by)
    values (${id}, ${values.appId}, ${values.name}, ${values.slug}, 'webhook', ${values.webhookUrl}, '', ${JSON.stringify(values.sealedSecret)}::jsonb, ${values.timeoutSeconds}, ${values.isActive}, ${values.createdBy})`);
}

/** The id the next function will have: its secret is sealed to it before the row is written. */
export async function nextFunctionId(db: Queryable, site: Site): Promise<number> {
  const [row] = await db.rows<{ id: number }>(
    sql`select nextval(pg_get_serial_sequence(${`"${site.schemaName}".functions`}, 'id'))::int as id`,
  );
  return Number(row!.id);
}

export async function updateFunction(
  db: Queryable,
  site: Site,
  id: number,
  values: { name: string; webhookUrl: string; timeoutSeconds: number; isActive: boolean },
): Promise<void> {
  await db.run(sql`update ${tenantTable(site, 'functions')}
    set name = ${values.name}, webhook_url = ${values.webhookUrl}, timeout_seconds = ${values.timeoutSeconds}, is_active = ${values.isActive}, updated_at = now()
    where id = ${id}`);
}

export async function deleteFunction(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'functions')} where id = ${id}`);
}

export async function listInvocations(
  db: Queryable,
  site: Site,
  functionId: number,
  page: PageRequest,
): Promise<CountedPage<InvocationRow>> {
  const readPage = async ({ window }: PageRead) => {
    const rows = await db.rows<Record<string, unknown>>(sql`select * from ${tenantTable(site, 'function_invocations')}
    where function_id = ${functionId} order by created_at desc, id desc ${window}`);
    return rows.map(
      (row): InvocationRow => ({
        invocationId: String(row.invocation_id),
        taskId: String(row.task_id),
        event: String(row.event),
        status: String(row.status),
        startedAt: toDateOrNull(row.started_at),
        completedAt: toDateOrNull(row.completed_at),
        error: row.error === null ? null : String(row.error),
      }),
    );
  };
  return countedPage(db, page, readPage, sql`select 1 from ${tenantTable(site, 'function_invocations')} where function_id = ${functionId}`);
}
