// SQL of frontend workers and their builds (tenant schema) and of the platform's hosted domain
// registry. Tenant tables are named through `tenantTable`; every value is a bound parameter.
import { countedPage, type CountedPage, type PageRead } from '#shared/db/counted-page.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import { hostHolders } from '#shared/hosting/host-claims.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

type Site = Pick<Tenant, 'schemaName'>;

export interface WorkerRow {
  id: number;
  slug: string;
  name: string;
  subdomain: string;
  isInternal: boolean;
  domain: string | null;
  fullDomain: string;
  appId: number | null;
  appName: string | null;
  activeBuildUuid: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface BuildRow {
  uuid: string;
  workerId: number;
  fileCount: number;
  totalBytes: number;
  files: string[];
  createdAt: Date;
}

export type WorkerOrdering = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

function workerOf(row: Record<string, unknown>): WorkerRow {
  return {
    id: Number(row.id),
    slug: String(row.slug),
    name: String(row.name),
    subdomain: String(row.subdomain),
    isInternal: Boolean(row.is_internal),
    domain: row.domain === null ? null : String(row.domain),
    fullDomain: String(row.full_domain),
    appId: row.app_id === null ? null : Number(row.app_id),
    appName: row.app_name === null || row.app_name === undefined ? null : String(row.app_name),
    activeBuildUuid: row.active_build_uuid === null ? null : String(row.active_build_uuid),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function buildOf(row: Record<string, unknown>): BuildRow {
  const files = typeof row.files === 'string' ? (JSON.parse(row.files) as unknown) : row.files;
  return {
    uuid: String(row.uuid),
    workerId: Number(row.worker_id),
    fileCount: Number(row.file_count),
    totalBytes: Number(row.total_bytes),
    files: Array.isArray(files) ? files.map(String) : [],
    createdAt: toDate(row.created_at),
  };
}

function selectWorkers(site: Site, where: SQL): SQL {
  return sql`select w.*, a.name as app_name
    from ${tenantTable(site, 'frontend_workers')} w
    left join ${tenantTable(site, 'apps')} a on a.id = w.app_id
    ${where}`;
}

const ORDER_BY: Record<WorkerOrdering, SQL> = {
  created_at: sql`order by w.created_at, w.id`,
  '-created_at': sql`order by w.created_at desc, w.id desc`,
  updated_at: sql`order by w.updated_at, w.id`,
  '-updated_at': sql`order by w.updated_at desc, w.id desc`,
};

export async function listWorkers(
  db: Queryable,
  site: Site,
  filter: { search?: string; appId?: number; ordering: WorkerOrdering; page: PageRequest },
): Promise<CountedPage<WorkerRow>> {
  const conditions: SQL[] = [];
  if (filter.search) conditions.push(sql`w.name ilike ${containsPattern(filter.search)}`);
  if (filter.appId !== undefined) conditions.push(sql`w.app_id = ${filter.appId}`);
  const where = conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
  const readPage = async ({ window }: PageRead) =>
    (await db.rows(sql`${selectWorkers(site, where)} ${ORDER_BY[filter.ordering]} ${window}`)).map(workerOf);
  return countedPage(db, filter.page, readPage, sql`select 1 from ${tenantTable(site, 'frontend_workers')} w ${where}`);
}

export async function findWorker(db: Queryable, site: Site, slug: string): Promise<WorkerRow | undefined> {
  const [row] = await db.rows(selectWorkers(site, sql`where w.slug = ${slug}`));
  return row === undefined ? undefined : workerOf(row);
}

/** Locks the worker's row for the rest of the transaction (activation, subdomain change, delete). */
export async function lockWorker(tx: Queryable, site: Site, slug: string): Promise<WorkerRow | undefined> {
  const [locked] = await tx.rows<{ id: number }>(
    sql`select id from ${tenantTable(site, 'frontend_workers')} where slug = ${slug} for update`,
  );
  return locked === undefined ? undefined : findWorker(tx, site, slug);
}

export async function workerSlugsLike(db: Queryable, site: Site, base: string): Promise<string[]> {
  const rows = await db.rows<{ slug: string }>(
    sql`select slug from ${tenantTable(site, 'frontend_workers')} where slug like ${`${base}%`}`,
  );
  return rows.map((row) => row.slug);
}

export async function findAppName(db: Queryable, site: Site, appId: number): Promise<string | undefined> {
  const [row] = await db.rows<{ name: string }>(
    sql`select name from ${tenantTable(site, 'apps')} where id = ${appId} and deleted_at is null`,
  );
  return row?.name;
}

export interface NewWorker {
  slug: string;
  name: string;
  subdomain: string;
  isInternal: boolean;
  domain: string | null;
  fullDomain: string;
  appId: number | null;
  createdBy: number;
}

export async function insertWorker(tx: Queryable, site: Site, worker: NewWorker): Promise<number> {
  const [row] = await tx.rows<{ id: number }>(sql`
    insert into ${tenantTable(site, 'frontend_workers')} (slug, name, subdomain, is_internal, domain, full_domain, app_id, created_by)
    values (${worker.slug}, ${worker.name}, ${worker.subdomain}, ${worker.isInternal}, ${worker.domain}, ${worker.fullDomain}, ${worker.appId}, ${worker.createdBy})
    returning id`);
  return Number(row!.id);
}

export async function updateWorker(
  tx: Queryable,
  site: Site,
  id: number,
  values: { name: string; subdomain: string; isInternal: boolean; domain: string | null; fullDomain: string },
): Promise<void> {
  await tx.run(sql`update ${tenantTable(site, 'frontend_workers')}
    set name = ${values.name}, subdomain = ${values.subdomain}, is_internal = ${values.isInternal}, domain = ${values.domain},
      full_domain = ${values.fullDomain}, updated_at = now()
    where id = ${id}`);
}

export async function setActiveBuild(tx: Queryable, site: Site, id: number, buildUuid: string): Promise<void> {
  await tx.run(
    sql`update ${tenantTable(site, 'frontend_workers')} set active_build_uuid = ${buildUuid}, updated_at = now() where id = ${id}`,
  );
}

export async function deleteWorkerRow(tx: Queryable, site: Site, id: number): Promise<void> {
  await tx.run(sql`delete from ${tenantTable(site, 'frontend_workers')} where id = ${id}`);
}

export async function insertBuild(
  tx: Queryable,
  site: Site,
  build: { uuid: string; workerId: number; files: string[]; totalBytes: number; createdBy: number },
): Promise<BuildRow> {
  const [row] = await tx.rows(sql`
    insert into ${tenantTable(site, 'frontend_worker_builds')} (uuid, worker_id, file_count, total_bytes, files, created_by)
    values (${build.uuid}, ${build.workerId}, ${build.files.length}, ${build.totalBytes}, ${JSON.stringify(build.files)}::jsonb, ${build.createdBy})
    returning *`);
  return buildOf(row!);
}

export async function listBuilds(db: Queryable, site: Site, workerId: number): Promise<BuildRow[]> {
  const rows = await db.rows(
    sql`select * from ${tenantTable(site, 'frontend_worker_builds')} where worker_id = ${workerId} order by created_at desc, id desc`,
  );
  return rows.map(buildOf);
}

export async function findBuild(db: Queryable, site: Site, workerId: number, uuid: string): Promise<BuildRow | undefined> {
  const [row] = await db.rows(
    sql`select * from ${tenantTable(site, 'frontend_worker_builds')} where worker_id = ${workerId} and uuid = ${uuid}`,
  );
  return row === undefined ? undefined : buildOf(row);
}

// ---- the platform's hosted domain registry ----

export interface DomainClaim {
  fullDomain: string;
  siteId: number;
  workerSlug: string;
  workerName: string;
}

/** Claims a full domain for a worker; a domain already claimed fails with a unique violation. */
export async function claimDomain(tx: Queryable, claim: DomainClaim): Promise<void> {
  await tx.run(sql`insert into platform.hosted_domains (full_domain, site_id, worker_slug, worker_name)
    values (${claim.fullDomain}, ${claim.siteId}, ${claim.workerSlug}, ${claim.workerName})`);
}

/** Moves a worker's claim to another full domain (a subdomain change) and keeps its name current. */
export async function updateClaim(
  tx: Queryable,
  siteId: number,
  workerSlug: string,
  values: { fullDomain: string; workerName: string },
): Promise<void> {
  await tx.run(sql`update platform.hosted_domains set full_domain = ${values.fullDomain}, worker_name = ${values.workerName}, updated_at = now()
    where site_id = ${siteId} and worker_slug = ${workerSlug}`);
}

export async function pointDomainAt(tx: Queryable, siteId: number, workerSlug: string, buildPrefix: string): Promise<void> {
  await tx.run(sql`update platform.hosted_domains set build_prefix = ${buildPrefix}, updated_at = now()
    where site_id = ${siteId} and worker_slug = ${workerSlug}`);
}

export async function releaseDomain(tx: Queryable, siteId: number, workerSlug: string): Promise<void> {
  await tx.run(sql`delete from platform.hosted_domains where site_id = ${siteId} and worker_slug = ${workerSlug}`);
}

export interface DomainHolder {
  fullDomain: string;
  /** Set for a worker's claim; undefined for a host the platform serves its API on (a site domain or API host). */
  siteId?: number;
  workerSlug?: string;
  workerName?: string;
}

/**
 * Which of these full domains are taken: by a worker anywhere, as a site's domain, or as a site's
 * own API host (shared/hosting/host-claims.ts, the check the domains endpoints use too).
 */
export async function domainHolders(db: Queryable, fullDomains: readonly string[], platformDomain: string): Promise<DomainHolder[]> {
  const holders = await hostHolders(db, fullDomains, platformDomain);
  return holders.map((holder) => ({
    fullDomain: holder.host,
    siteId: holder.kind === 'worker' ? holder.siteId : undefined,
    workerSlug: holder.workerSlug,
    workerName: holder.workerName,
  }));
}
