// SQL of the users endpoints. Returns plain user rows; the service decides who may see what.
import { and, asc, eq, ne, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import {
  organizationMembers,
  organizations,
  siteUserPermissions,
  users,
  type NewUserRow,
  type UserRow,
} from '#shared/db/platform-schema.ts';
import { pageOffset, type PageRequest } from '#shared/http/pagination.ts';
import { countedPage, pageWindowSql, type CountedPage, type PageRead } from '#shared/db/counted-page.ts';
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

export type UserPage = CountedPage<UserRow>;

/** Sort keys as columns of `u` (platform.users). */
const ORDERING_COLUMNS: Record<UserOrderingField, string> = {
  id: 'u.id',
  username: 'u.username',
  email: 'u.email',
  first_name: 'u.first_name',
  last_name: 'u.last_name',
  date_joined: 'u.date_joined',
  last_login: 'u.last_login',
};

/** Page sizes are whole numbers of at most this (pagination.ts), written into the statement as literals. */
const LARGEST_PAGE_LITERAL = 1_000;

function listWhere(filter: UserListFilter): SQL {
  const conditions: SQL[] = [];
  if (filter.onlyUserId !== undefined) conditions.push(sql`u.id = ${filter.onlyUserId}`);
  if (filter.organizationId !== undefined) {
    conditions.push(
      sql`u.id in (select m.user_id from platform.organization_members m where m.organization_id = ${filter.organizationId})`,
    );
  }
  if (filter.isActive !== undefined) conditions.push(sql`u.is_active = ${filter.isActive}`);
  if (filter.isStaff !== undefined) conditions.push(sql`u.is_staff = ${filter.isStaff}`);
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containsPattern(filter.search);
    conditions.push(
      sql`(u.username ilike ${pattern} or u.email ilike ${pattern} or u.first_name ilike ${pattern} or u.last_name ilike ${pattern})`,
    );
  }
  return conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
}

/**
 * One page of users with the total on every row: a plain statement rather than drizzle's query
 * builder, whose selection building and row mapping were a sixth of the CPU time of a users-list
 * request. The total is `userCountStatement` as a scalar subquery, planned apart from the page (an
 * InitPlan run once; a window count would need every match before the first row). The page size is
 * a literal, and so is the first page's offset (`pageWindowSql`), so PostgreSQL keeps a generic plan for
 * the prepared text of a first page. `withTotal: false` leaves the total out: the benchmarks' bare
 * servers send page and count as two statements.
 */
export function userPageStatement(filter: UserListFilter, options: { withTotal: boolean; limit?: number } = { withTotal: true }): SQL {
  const pageSize = options.limit ?? filter.page.pageSize;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LARGEST_PAGE_LITERAL + 1)
    throw new Error(`page size ${pageSize} out of range`);
  const ordering = filter.ordering.length > 0 ? filter.ordering : [{ field: 'username' as const, descending: false }];
  const orderBy = [
    ...ordering.map(({ field, descending }) => `${ORDERING_COLUMNS[field]} ${descending ? 'desc' : 'asc'}`),
    'u.id asc',
  ].join(', ');
  const total = options.withTotal ? sql`, (${userCountStatement(filter)}) as total` : sql``;
  return sql`select u.id, u.uuid, u.username, u.email, u.password_hash, u.first_name, u.last_name, u.is_active, u.is_staff,
      u.is_superuser, u.is_deleted, u.date_joined, u.last_login, u.deleted_at, u.tokens_valid_after, u.email_verified${total}
    from platform.users u ${listWhere(filter)}
    order by ${sql.raw(orderBy)} ${pageWindowSql(pageSize, pageOffset(filter.page))}`;
}

/** The number of users a list filter matches. */
export function userCountStatement(filter: UserListFilter): SQL {
  return sql`select count(*)::int as total from platform.users u ${listWhere(filter)}`;
}

/** A row of userPageStatement. The drivers hand timestamps back as text (drizzle's parsers). */
export interface UserPageRow extends Record<string, unknown> {
  id: number;
  uuid: string;
  username: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  is_staff: boolean;
  is_superuser: boolean;
  is_deleted: boolean;
  date_joined: string | Date;
  last_login: string | Date | null;
  deleted_at: string | Date | null;
  tokens_valid_after: string | Date | null;
  email_verified: boolean;
  total: number;
}

function instant(value: string | Date): Date;
function instant(value: string | Date | null): Date | null;
function instant(value: string | Date | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}

/** The user of a page row, as drizzle's query builder would have typed it. */
export function userFromPageRow(row: UserPageRow): UserRow {
  return {
    id: row.id,
    uuid: row.uuid,
    username: row.username,
    email: row.email,
    passwordHash: row.password_hash,
    firstName: row.first_name,
    lastName: row.last_name,
    isActive: row.is_active,
    isStaff: row.is_staff,
    isSuperuser: row.is_superuser,
    isDeleted: row.is_deleted,
    dateJoined: instant(row.date_joined),
    lastLogin: instant(row.last_login),
    deletedAt: instant(row.deleted_at),
    tokensValidAfter: instant(row.tokens_valid_after),
    emailVerified: row.email_verified,
  };
}

export async function listUsers(db: Queryable, filter: UserListFilter): Promise<UserPage> {
  const limit = filter.page.pageSize + 1;
  if ((filter.page.count ?? 'exact') !== 'exact') {
    const readPage = async ({ limit: size }: PageRead) =>
      (await db.rows<UserPageRow>(userPageStatement(filter, { withTotal: false, limit: size }))).map(userFromPageRow);
    return countedPage(db, filter.page, readPage, sql`select 1 from platform.users u ${listWhere(filter)}`);
  }
  // The exact total rides along with the page (one round trip, planned apart); only an empty page needs its own count.
  const read = await db.rows<UserPageRow>(userPageStatement(filter, { withTotal: true, limit }));
  const more = read.length > filter.page.pageSize;
  const rows = (more ? read.slice(0, filter.page.pageSize) : read).map(userFromPageRow);
  if (read.length > 0) return { rows, total: { value: Number(read[0]!.total), estimated: false, more } };
  const [counted] = await db.rows<{ total: number }>(userCountStatement(filter));
  return { rows, total: { value: Number(counted?.total ?? 0), estimated: false, more } };
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
  // Both unique whatever the case (README); sign-in and URLs still match a username exactly.
  if (candidate.username !== undefined) clauses.push(sql`lower(${users.username}) = lower(${candidate.username})`);
  if (candidate.email !== undefined) clauses.push(sql`lower(${users.email}) = lower(${candidate.email})`);
  if (clauses.length === 0) return { usernameTaken: false, emailTaken: false };
  const others = exceptUserId === undefined ? undefined : ne(users.id, exceptUserId);
  const taken = await db.query((orm) =>
    orm
      .select({ username: users.username, email: users.email })
      .from(users)
      .where(and(or(...clauses), others)),
  );
  return {
    usernameTaken: taken.some((row) => row.username.toLowerCase() === candidate.username?.toLowerCase()),
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

/**
 * Soft delete: the account is kept, disabled and stripped of its organization memberships. Its site
 * permissions go with them, as when a member is removed: every site belongs to an organization, and
 * with no membership left none of them may be kept (a restore must not bring them back).
 */
export async function softDeleteUser(db: Queryable, userId: number, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query((orm) =>
      orm.update(users).set({ isDeleted: true, isActive: false, deletedAt: at, tokensValidAfter: at }).where(eq(users.id, userId)),
    );
    await tx.query((orm) => orm.delete(siteUserPermissions).where(eq(siteUserPermissions.userId, userId)));
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
