// SQL of the domains endpoints. One primary per site is also enforced by a partial unique index;
// `demotePrimary` runs first inside the same transaction so a switch never trips it.
import { and, asc, desc, eq, like, ne, or } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { domains, type DomainRow } from '#shared/db/platform-schema.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import { uniqueSlug } from '#shared/text/slugs.ts';
import { domainSlugBase } from './domain-names.ts';
import { looksLikeUuid } from './site-schemas.ts';
import { startsWithPattern } from '#shared/text/like-patterns.ts';

export async function findDomain(db: Queryable, siteId: number, slugOrUuid: string): Promise<DomainRow | undefined> {
  const byUuid = looksLikeUuid(slugOrUuid);
  const uuid = slugOrUuid.toLowerCase();
  const match = byUuid ? or(eq(domains.uuid, uuid), eq(domains.slug, slugOrUuid)) : eq(domains.slug, slugOrUuid);
  // The UUID's own row before a slug that happens to read the same, as for sites.
  const [row] = await db.query((orm) =>
    orm
      .select()
      .from(domains)
      .where(and(eq(domains.siteId, siteId), match))
      .orderBy(byUuid ? sql`${domains.uuid} = ${uuid} desc` : asc(domains.id))
      .limit(1),
  );
  return row;
}

export async function listDomains(db: Queryable, siteId: number, page: PageRequest): Promise<CountedPage<DomainRow>> {
  const where = eq(domains.siteId, siteId);
  return countedPage(
    db,
    page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm.select().from(domains).where(where).orderBy(desc(domains.isPrimary), asc(domains.domain)).limit(limit).offset(offset),
      ),
    matchesOf(domains, where),
  );
}

export async function hasPrimary(db: Queryable, siteId: number): Promise<boolean> {
  const rows = await db.query((orm) =>
    orm
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.siteId, siteId), eq(domains.isPrimary, true))),
  );
  return rows.length > 0;
}

/** Clears the primary flag of the site's domains other than `keepDomainId`. */
export async function demotePrimary(db: Queryable, siteId: number, keepDomainId?: number): Promise<void> {
  await db.query((orm) =>
    orm
      .update(domains)
      .set({ isPrimary: false, updatedAt: new Date() })
      .where(
        and(eq(domains.siteId, siteId), eq(domains.isPrimary, true), keepDomainId === undefined ? undefined : ne(domains.id, keepDomainId)),
      ),
  );
}

async function freeDomainSlug(db: Queryable, host: string): Promise<string> {
  return uniqueSlug(
    await domainSlugBase(host),
    async (base) => {
      const rows = await db.query((orm) =>
        orm
          .select({ slug: domains.slug })
          .from(domains)
          .where(like(domains.slug, startsWithPattern(base))),
      );
      return rows.map((row) => row.slug);
    },
    { maxLength: 255 },
  );
}

export async function insertDomain(
  db: Queryable,
  values: { siteId: number; domain: string; isPrimary: boolean; isActive: boolean },
): Promise<DomainRow> {
  const slug = await freeDomainSlug(db, values.domain);
  const [row] = await db.query((orm) =>
    orm
      .insert(domains)
      .values({ ...values, slug })
      .returning(),
  );
  return row!;
}

export async function updateDomain(
  db: Queryable,
  domainId: number,
  values: Partial<Pick<DomainRow, 'domain' | 'isPrimary' | 'isActive'>>,
): Promise<DomainRow> {
  const [row] = await db.query((orm) =>
    orm
      .update(domains)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(domains.id, domainId))
      .returning(),
  );
  return row!;
}

export async function deleteDomain(db: Queryable, domainId: number): Promise<void> {
  await db.query((orm) => orm.delete(domains).where(eq(domains.id, domainId)));
}
