// SQL of the users endpoints. Returns plain user rows; the service decides who may see what.
import { and, asc, count, desc, eq, ilike, inArray, ne, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Queryable } from '#shared/db/database.ts';
import {
  organizationMembers,
  organizations,
  users,
  type NewUserRow,
  type UserRow,
} from '#shared/db/platform-schema.ts';
import { pageOffset, type PageRequest } from '#shared/http/pagination.ts';
import { looksLikeUuid, type UserOrdering, type UserOrderingField } from './user-schemas.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export interface UserListFilter {
  /** Restrict to one user (callers who may only see themselves). */
  onlyUserId?: number;
  /** Restrict to members of one organization. */
  organizationId?: number;
  search?: string;
  isActive?: boolean;
  isStaff?: boolean;
  ordering: UserOrdering[];
  page: PageRequest;
}

export interface UserPage {
  rows: UserRow[];
  total: number;
}

const orderingColumns: Record<UserOrderingField, AnyPgColumn> = {
  id: users.id,
  username: users.username,
  email: users.email,
  first_name: users.firstName,
  last_name: users.lastName,
  date_joined: users.dateJoined,
  last_login: users.lastLogin,
};

function listConditions(filter: UserListFilter): SQL | undefined {
  const conditions: Array<SQL | undefined> = [];
  if (filter.onlyUserId !== undefined) conditions.push(eq(users.id, filter.onlyUserId));
  if (filter.organizationId !== undefined) {
    conditions.push(
      inArray(
        users.id,
        sql`(select ${organizationMembers.userId} from ${organizationMembers} where ${organizationMembers.organizationId} = ${filter.organizationId})`,
      ),
    );
  }
  if (filter.isActive !== undefined) conditions.push(eq(users.isActive, filter.isActive));
  if (filter.isStaff !== undefined) conditions.push(eq(users.isStaff, filter.isStaff));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(
      or(
        ilike(users.username, pattern),
        ilike(users.email, pattern),
        ilike(users.firstName, pattern),
        ilike(users.lastName, pattern),
      ),
    );
  }
  return and(...conditions);
}

export async function listUsers(db: Queryable, filter: UserListFilter): Promise<UserPage> {
  const where = listConditions(filter);
  const ordering = filter.ordering.length > 0 ? filter.ordering : [{ field: 'username' as const, descending: false }];
  const orderBy = [
    ...ordering.map(({ field, descending }) => (descending ? desc(orderingColumns[field]) : asc(orderingColumns[field]))),
    asc(users.id),
  ];
  // The total rides along with the page (one round trip); only an empty page needs its own count.
  const rows = await db.query((orm) =>
    orm
      .select({ user: users, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(users)
      .where(where)
      .orderBy(...orderBy)
      .limit(filter.page.pageSize)
      .offset(pageOffset(filter.page)),
  );
  if (rows.length > 0) return { rows: rows.map((row) => row.user), total: rows[0]!.total };
  const [counted] = await db.query((orm) => orm.select({ total: count() }).from(users).where(where));
  return { rows: [], total: Number(counted?.total ?? 0) };
}

/** Finds a user by username or UUID, soft-deleted ones included. */
export async function findUser(db: Queryable, identifier: string): Promise<UserRow | undefined> {
  const match = looksLikeUuid(identifier) ? eq(users.uuid, identifier.toLowerCase()) : eq(users.username, identifier);
  const [user] = await db.query((orm) => orm.select().from(users).where(match));
  return user;
}

export interface TakenIdentity {
  usernameTaken: boolean;
  emailTaken: boolean;
}

export async function findTakenIdentity(
  db: Queryable,
  candidate: { username?: string; email?: string },
  exceptUserId?: number,
): Promise<TakenIdentity> {
  const clauses: SQL[] = [];
  if (candidate.username !== undefined) clauses.push(eq(users.username, candidate.username));
  if (candidate.email !== undefined) clauses.push(sql`lower(${users.email}) = lower(${candidate.email})`);
  if (clauses.length === 0) return { usernameTaken: false, emailTaken: false };
  const others = exceptUserId === undefined ? undefined : ne(users.id, exceptUserId);
  const taken = await db.query((orm) =>
    orm.select({ username: users.username, email: users.email }).from(users).where(and(or(...clauses), others)),
  );
  return {
    usernameTaken: taken.some((row) => row.username === candidate.username),
    emailTaken: taken.some((row) => row.email.toLowerCase() === candidate.email?.toLowerCase()),
  };
}

export async function insertUser(db: Queryable, values: NewUserRow): Promise<UserRow> {
  const [user] = await db.query((orm) => orm.insert(users).values(values).returning());
  return user!;
}

export async function updateUser(db: Queryable, userId: number, values: Partial<NewUserRow>): Promise<UserRow> {
  const [user] = await db.query((orm) => orm.update(users).set(values).where(eq(users.id, userId)).returning());
  return user!;
}

/** Soft delete: the account is kept, disabled and stripped of its organization memberships. */
export async function softDeleteUser(db: Queryable, userId: number, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query((orm) =>
      orm
        .update(users)
        .set({ isDeleted: true, isActive: false, deletedAt: at, tokensValidAfter: at })
        .where(eq(users.id, userId)),
    );
    await tx.query((orm) => orm.delete(organizationMembers).where(eq(organizationMembers.userId, userId)));
  });
}

export interface UserGroup {
  id: number;
  name: string;
}

export interface UserOrganization {
  slug: string;
  name: string;
  role: 'owner' | 'admin' | 'member';
}

/** Global groups and the groups the user's memberships carry, each once. */
export async function groupsOfUser(db: Queryable, userId: number): Promise<UserGroup[]> {
  return db.rows<UserGroup & Record<string, unknown>>(sql`
    select g.id, g.name from platform.groups g
    where g.id in (
      select ug.group_id from platform.user_groups ug where ug.user_id = ${userId}
      union
      select mg.group_id from platform.organization_member_groups mg
        join platform.organization_members m on m.id = mg.member_id
      where m.user_id = ${userId}
    )
    order by g.name`);
}

export async function organizationsOfUser(db: Queryable, userId: number): Promise<UserOrganization[]> {
  const rows = await db.query((orm) =>
    orm
      .select({
        slug: organizations.slug,
        name: organizations.name,
        isOwner: organizationMembers.isOwner,
        isAdmin: organizationMembers.isAdmin,
      })
      .from(organizationMembers)
      .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
      .where(eq(organizationMembers.userId, userId))
      .orderBy(asc(organizations.name)),
  );
  return rows.map((row) => ({
    slug: row.slug,
    name: row.name,
    role: row.isOwner ? 'owner' : row.isAdmin ? 'admin' : 'member',
  }));
}
