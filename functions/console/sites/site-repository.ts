// SQL of the sites endpoints: site rows with their organization, lists filtered by a caller scope,
// and the writes of creation and deletion. Returns plain objects; the service decides who may do what.
import { and, asc, eq, ilike, like, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { domains, organizations, sites, type SiteRow } from '#shared/db/platform-schema.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import { looksLikeUuid } from './site-schemas.ts';
import { siteScopeCondition, type SiteScope } from './site-scope-sql.ts';
import { containsPattern, startsWithPattern } from '#shared/text/like-patterns.ts';

export interface SiteOrganization {
  id: number;
  uuid: string;
  slug: string;
  name: string;
}

export interface SiteWithOrganization {
  site: SiteRow;
  organization: SiteOrganization;
}

const organizationColumns = { id: organizations.id, uuid: organizations.uuid, slug: organizations.slug, name: organizations.name };

/**
 * The site a path segment names. A UUID-shaped segment is the site of that UUID, and only when none
 * has it a site whose slug is that text (made before such slugs were refused): never whichever row
 * the scan meets first.
 */
export async function findSite(db: Queryable, slugOrUuid: string): Promise<SiteWithOrganization | undefined> {
  const byUuid = looksLikeUuid(slugOrUuid);
  const uuid = slugOrUuid.toLowerCase();
  const [row] = await db.query((orm) =>
    orm
      .select({ site: sites, organization: organizationColumns })
      .from(sites)
      .innerJoin(organizations, eq(organizations.id, sites.organizationId))
      .where(byUuid ? or(eq(sites.uuid, uuid), eq(sites.slug, slugOrUuid)) : eq(sites.slug, slugOrUuid))
      .orderBy(byUuid ? sql`${sites.uuid} = ${uuid} desc` : asc(sites.id))
      .limit(1),
  );
  return row;
}

export interface SiteListFilter {
  /** The sites the caller may see. */
  scope: SiteScope;
  organizationId?: number;
  search?: string;
  environment?: string;
  page: PageRequest;
}

export async function listSites(db: Queryable, filter: SiteListFilter): Promise<CountedPage<SiteWithOrganization>> {
  const conditions: Array<SQL | undefined> = [siteScopeCondition(filter.scope, sql`${sites.id}`)];
  if (filter.organizationId !== undefined) conditions.push(eq(sites.organizationId, filter.organizationId));
  if (filter.environment !== undefined) conditions.push(eq(sites.environment, filter.environment));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(or(ilike(sites.name, pattern), ilike(sites.slug, pattern)));
  }
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm
          .select({ site: sites, organization: organizationColumns })
          .from(sites)
          .innerJoin(organizations, eq(organizations.id, sites.organizationId))
          .where(and(...conditions))
          .orderBy(asc(sites.slug))
          .limit(limit)
          .offset(offset),
      ),
    matchesOf(sites, and(...conditions)),
  );
}

/** Every site slug that starts with `base`, for choosing the next free `-2`, `-3` suffix. */
export async function siteSlugsLike(db: Queryable, base: string): Promise<string[]> {
  const rows = await db.query((orm) =>
    orm
      .select({ slug: sites.slug })
      .from(sites)
      .where(like(sites.slug, startsWithPattern(base))),
  );
  return rows.map((row) => row.slug);
}

export async function insertSite(db: Queryable, values: typeof sites.$inferInsert): Promise<SiteRow> {
  const [site] = await db.query((orm) => orm.insert(sites).values(values).returning());
  return site!;
}

export async function updateSite(db: Queryable, siteId: number, values: Partial<typeof sites.$inferInsert>): Promise<SiteRow> {
  const [site] = await db.query((orm) =>
    orm
      .update(sites)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(sites.id, siteId))
      .returning(),
  );
  return site!;
}

/** Removes the site row; its domains and user permissions go with it (ON DELETE CASCADE). */
export async function deleteSiteRow(db: Queryable, siteId: number): Promise<void> {
  await db.query((orm) => orm.delete(sites).where(eq(sites.id, siteId)));
}

/** Names of the database's schemas that match a LIKE pattern, whether or not a site owns them. */
export async function schemaNamesLike(db: Queryable, pattern: string): Promise<string[]> {
  const rows = await db.rows<{ schema_name: string }>(
    sql`select schema_name::text as schema_name from information_schema.schemata where schema_name like ${pattern}`,
  );
  return rows.map((row) => row.schema_name);
}

export interface SiteDomainSummary {
  domain: string;
  is_primary: boolean;
}

export async function activeDomainsOfSite(db: Queryable, siteId: number): Promise<SiteDomainSummary[]> {
  const rows = await db.query((orm) =>
    orm
      .select({ domain: domains.domain, isPrimary: domains.isPrimary })
      .from(domains)
      .where(and(eq(domains.siteId, siteId), eq(domains.isActive, true)))
      .orderBy(sql`${domains.isPrimary} desc`, asc(domains.domain)),
  );
  return rows.map((row) => ({ domain: row.domain, is_primary: row.isPrimary }));
}
