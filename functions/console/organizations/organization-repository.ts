// SQL of the organizations endpoints: listing, creation with the founding membership, changes and
// the hard delete with its cascade. Returns plain rows; the service decides who may do what.
import { and, asc, desc, eq, ilike, inArray, like, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Queryable } from '#shared/db/database.ts';
import {
  invitations,
  organizationMembers,
  organizations,
  sites,
  users,
  type MembershipOrigin,
  type OrganizationRow,
} from '#shared/db/platform-schema.ts';
import { dropTenantSchema } from '#shared/db/tenant-schemas.ts';
import { hostsOfSites } from '#shared/hosting/hosted-domains.ts';
import { queueTenantPurges } from '#shared/tenancy/tenant-purges.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import type { OrganizationOrderingField } from './organization-schemas.ts';
import { containsPattern, escapeLike } from '#shared/text/like-patterns.ts';

export interface OrganizationListFilter {
  /** Only organizations this user is a member of (everyone but superusers). */
  memberUserId?: number;
  search?: string;
  isActive?: boolean;
  ordering: Array<{ field: OrganizationOrderingField; descending: boolean }>;
  page: PageRequest;
}

const orderingColumns: Record<OrganizationOrderingField, AnyPgColumn> = {
  name: organizations.name,
  slug: organizations.slug,
  created: organizations.created,
  modified: organizations.modified,
  is_active: organizations.isActive,
};

export async function listOrganizations(db: Queryable, filter: OrganizationListFilter): Promise<CountedPage<OrganizationRow>> {
  const conditions: Array<SQL | undefined> = [];
  if (filter.memberUserId !== undefined) {
    conditions.push(
      inArray(
        organizations.id,
        sql`(select ${organizationMembers.organizationId} from ${organizationMembers} where ${organizationMembers.userId} = ${filter.memberUserId})`,
      ),
    );
  }
  if (filter.isActive !== undefined) conditions.push(eq(organizations.isActive, filter.isActive));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(or(ilike(organizations.name, pattern), ilike(organizations.slug, pattern)));
  }
  const where = and(...conditions);
  const ordering = filter.ordering.length > 0 ? filter.ordering : [{ field: 'name' as const, descending: false }];
  const orderBy = [
    ...ordering.map(({ field, descending }) => (descending ? desc(orderingColumns[field]) : asc(orderingColumns[field]))),
    asc(organizations.id),
  ];
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm
          .select()
          .from(organizations)
          .where(where)
          .orderBy(...orderBy)
          .limit(limit)
          .offset(offset),
      ),
    matchesOf(organizations, where),
  );
}

/** Every organization slug equal to `base` or starting with `base-`. */
export async function organizationSlugsLike(db: Queryable, base: string): Promise<string[]> {
  const escaped = escapeLike(base);
  const rows = await db.query((orm) =>
    orm
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(or(eq(organizations.slug, base), like(organizations.slug, `${escaped}-%`))),
  );
  return rows.map((row) => row.slug);
}

/** Creates the organization and makes its creator the owner and an admin, in one transaction. */
export async function insertOrganization(
  db: Queryable,
  values: { name: string; slug: string },
  creatorId: number,
): Promise<OrganizationRow> {
  return db.transaction(async (tx) => {
    const [organization] = await tx.query((orm) => orm.insert(organizations).values(values).returning());
    await tx.query((orm) =>
      orm
        .insert(organizationMembers)
        .values({ organizationId: organization!.id, userId: creatorId, isAdmin: true, isOwner: true, joinedVia: 'creator' }),
    );
    return organization!;
  });
}

export async function updateOrganization(
  db: Queryable,
  organizationId: number,
  values: { name?: string; isActive?: boolean; modified: Date },
): Promise<OrganizationRow> {
  const [organization] = await db.query((orm) =>
    orm.update(organizations).set(values).where(eq(organizations.id, organizationId)).returning(),
  );
  return organization!;
}

/** Memberships whose users the delete cascade may soft-delete; `unknown` (older rows) never. */
const CASCADING_ORIGINS: MembershipOrigin[] = ['creator', 'invitation', 'authorised'];

export interface OrganizationDeletion {
  droppedSchemas: string[];
  softDeletedUserIds: number[];
  /** The hosts the sites' workers claimed, for the build server to forget after the commit. */
  hostedDomains: string[];
}

/**
 * The hard delete of the spec's States table, in one transaction (PostgreSQL DDL is transactional,
 * so a failure leaves every schema in place): the organization's sites with their schemas (domains
 * and site permissions go with the site rows), its invitations and memberships, and the soft delete
 * of members who belong to no other organization. Superusers and staff are never soft-deleted this
 * way (they are platform operators, not accounts of the organization), nor is anyone whose
 * membership was not made with their consent or by someone with authority over them: otherwise
 * adding a stranger and deleting the organization would disable their account.
 */
export async function deleteOrganizationCascade(db: Queryable, organizationId: number, at: Date): Promise<OrganizationDeletion> {
  return db.transaction(async (tx) => {
    // Locks the row so a concurrent membership or site insert waits for the outcome.
    await tx.rows(sql`select id from platform.organizations where id = ${organizationId} for update`);
    const ownSites = await tx.query((orm) =>
      orm
        .select({ id: sites.id, uuid: sites.uuid, schemaName: sites.schemaName })
        .from(sites)
        .where(eq(sites.organizationId, organizationId)),
    );
    const exclusive = await tx.rows<{ id: number }>(sql`
      select m.user_id as id from platform.organization_members m
      join platform.users u on u.id = m.user_id
      where m.organization_id = ${organizationId} and not u.is_superuser and not u.is_staff
        and m.joined_via = any(${sql.param(CASCADING_ORIGINS)}::text[])
        and not exists (
          select 1 from platform.organization_members other
          where other.user_id = m.user_id and other.organization_id <> ${organizationId}
        )`);
    // Read before the site rows go: their hosted domain claims go with them.
    const hostedDomains = await hostsOfSites(
      tx,
      ownSites.map((site) => site.id),
    );
    for (const site of ownSites) await dropTenantSchema(tx, site.schemaName);
    // Their bytes in the stores and their edge hosts go after the commit, by the maintenance sweep
    // (tenant-purges.ts); queued before the site rows go, with the hosts they claimed.
    await queueTenantPurges(tx, ownSites);
    if (ownSites.length > 0) {
      await tx.query((orm) =>
        orm.delete(sites).where(
          inArray(
            sites.id,
            ownSites.map((site) => site.id),
          ),
        ),
      );
    }
    await tx.query((orm) => orm.delete(invitations).where(eq(invitations.organizationId, organizationId)));
    await tx.query((orm) => orm.delete(organizationMembers).where(eq(organizationMembers.organizationId, organizationId)));
    const userIds = exclusive.map((row) => Number(row.id));
    if (userIds.length > 0) {
      await tx.query((orm) =>
        orm
          .update(users)
          .set({ isDeleted: true, isActive: false, deletedAt: at, tokensValidAfter: at })
          .where(and(inArray(users.id, userIds), eq(users.isDeleted, false))),
      );
    }
    await tx.query((orm) => orm.delete(organizations).where(eq(organizations.id, organizationId)));
    return { droppedSchemas: ownSites.map((site) => site.schemaName), softDeletedUserIds: userIds, hostedDomains };
  });
}
