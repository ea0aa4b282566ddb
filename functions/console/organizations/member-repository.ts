// SQL of the members endpoints: memberships joined with their users.
import { and, asc, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Queryable } from '#shared/db/database.ts';
import { organizationMembers, users, type MemberRow, type MembershipOrigin, type UserRow } from '#shared/db/platform-schema.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import type { MemberOrderingField } from './member-schemas.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export interface MemberWithUser {
  member: MemberRow;
  user: UserRow;
}

export interface MemberListFilter {
  organizationId: number;
  userIsActive?: boolean;
  userIsDeleted?: boolean;
  isAdmin?: boolean;
  search?: string;
  /** Whether `search` also matches emails (only for callers who may read them all). */
  searchEmails: boolean;
  ordering: Array<{ field: MemberOrderingField; descending: boolean }>;
  page: PageRequest;
}

const orderingColumns: Record<MemberOrderingField, AnyPgColumn> = {
  username: users.username,
  email: users.email,
  first_name: users.firstName,
  last_name: users.lastName,
  date_joined: users.dateJoined,
  is_admin: organizationMembers.isAdmin,
  is_owner: organizationMembers.isOwner,
  created_at: organizationMembers.createdAt,
};

export async function listMembers(db: Queryable, filter: MemberListFilter): Promise<CountedPage<MemberWithUser>> {
  const conditions: Array<SQL | undefined> = [eq(organizationMembers.organizationId, filter.organizationId)];
  if (filter.userIsActive !== undefined) conditions.push(eq(users.isActive, filter.userIsActive));
  if (filter.userIsDeleted !== undefined) conditions.push(eq(users.isDeleted, filter.userIsDeleted));
  if (filter.isAdmin !== undefined) conditions.push(eq(organizationMembers.isAdmin, filter.isAdmin));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(
      or(
        ilike(users.username, pattern),
        filter.searchEmails ? ilike(users.email, pattern) : undefined,
        ilike(users.firstName, pattern),
        ilike(users.lastName, pattern),
      ),
    );
  }
  const where = and(...conditions);
  const ordering = filter.ordering.length > 0 ? filter.ordering : [{ field: 'username' as const, descending: false }];
  const orderBy = [
    ...ordering.map(({ field, descending }) => (descending ? desc(orderingColumns[field]) : asc(orderingColumns[field]))),
    asc(organizationMembers.id),
  ];
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm
          .select({ member: organizationMembers, user: users })
          .from(organizationMembers)
          .innerJoin(users, eq(users.id, organizationMembers.userId))
          .where(where)
          .orderBy(...orderBy)
          .limit(limit)
          .offset(offset),
      ),
    matchesOf(sql`${organizationMembers} join ${users} on ${users.id} = ${organizationMembers.userId}`, where),
  );
}

/** The membership of a user (by username or UUID) in the organization. */
export async function findMember(db: Queryable, organizationId: number, username: string): Promise<MemberWithUser | undefined> {
  const byUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(username);
  const [row] = await db.query((orm) =>
    orm
      .select({ member: organizationMembers, user: users })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(
        and(
          eq(organizationMembers.organizationId, organizationId),
          byUuid ? eq(users.uuid, username.toLowerCase()) : eq(users.username, username),
        ),
      ),
  );
  return row;
}

export async function findUserById(db: Queryable, userId: number): Promise<UserRow | undefined> {
  const [user] = await db.query((orm) => orm.select().from(users).where(eq(users.id, userId)));
  return user;
}

export async function insertMember(
  db: Queryable,
  values: { organizationId: number; userId: number; isAdmin: boolean; permissions: string[]; joinedVia: MembershipOrigin },
): Promise<MemberRow> {
  const [member] = await db.query((orm) => orm.insert(organizationMembers).values(values).returning());
  return member!;
}

export async function updateMember(
  db: Queryable,
  memberId: number,
  values: { isAdmin?: boolean; permissions?: string[] },
): Promise<MemberRow> {
  const [member] = await db.query((orm) =>
    orm.update(organizationMembers).set(values).where(eq(organizationMembers.id, memberId)).returning(),
  );
  return member!;
}

export async function deleteMember(db: Queryable, memberId: number): Promise<void> {
  await db.query((orm) => orm.delete(organizationMembers).where(eq(organizationMembers.id, memberId)));
}

/**
 * Ids of the organization's admin memberships, locked until the transaction ends, so two requests
 * that each remove "another" admin cannot leave the organization with none.
 */
export async function lockAdminMemberships(db: Queryable, organizationId: number): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(sql`
    select id from platform.organization_members
    where organization_id = ${organizationId} and is_admin
    order by id for update`);
  return rows.map((row) => Number(row.id));
}

/** Those of `userIds` who belong to an organization in which `callerId` is an admin or the owner. */
export async function usersAdministeredBy(db: Queryable, callerId: number, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.rows<{ user_id: number }>(sql`
    select distinct theirs.user_id from platform.organization_members theirs
    join platform.organization_members mine
      on mine.organization_id = theirs.organization_id and mine.user_id = ${callerId} and (mine.is_admin or mine.is_owner)
    where theirs.user_id = any(${sql.param(userIds.map(String))}::int[])`);
  return new Set(rows.map((row) => Number(row.user_id)));
}
