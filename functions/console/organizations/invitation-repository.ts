// SQL of the invitations endpoints. An invitation is read with its organization's slug and name
// and the inviter's username, which its record shows.
import { and, desc, eq, ilike, lte, gt, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { invitations, organizations, users, type InvitationRow } from '#shared/db/platform-schema.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import type { InvitationStatus } from './invitation-schemas.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export interface InvitationView {
  invitation: InvitationRow;
  organization: { id: number; slug: string; name: string };
  invitedBy: string | null;
}

const viewColumns = {
  invitation: invitations,
  organization: { id: organizations.id, slug: organizations.slug, name: organizations.name },
  invitedBy: users.username,
};

/** The stored status with a lapsed pending invitation read as expired. */
function statusCondition(status: InvitationStatus, now: Date): SQL | undefined {
  const lapsed = and(eq(invitations.status, 'pending'), lte(invitations.expiresAt, now));
  if (status === 'pending') return and(eq(invitations.status, 'pending'), gt(invitations.expiresAt, now));
  if (status === 'expired') return or(eq(invitations.status, 'expired'), lapsed);
  return eq(invitations.status, status);
}

export async function listInvitations(
  db: Queryable,
  filter: { organizationId: number; status?: InvitationStatus; search?: string; now: Date; page: PageRequest },
): Promise<CountedPage<InvitationView>> {
  const where = and(
    eq(invitations.organizationId, filter.organizationId),
    filter.status === undefined ? undefined : statusCondition(filter.status, filter.now),
    filter.search ? ilike(invitations.inviteeIdentifier, containsPattern(filter.search)) : undefined,
  );
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm
          .select(viewColumns)
          .from(invitations)
          .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
          .leftJoin(users, eq(users.id, invitations.invitedById))
          .where(where)
          .orderBy(desc(invitations.createdAt), desc(invitations.id))
          .limit(limit)
          .offset(offset),
      ),
    matchesOf(invitations, where),
  );
}

/** By token (the invitation UUID), optionally within one organization; `lock` holds the row. */
export async function findInvitation(
  db: Queryable,
  token: string,
  options: { organizationId?: number; lock?: boolean } = {},
): Promise<InvitationView | undefined> {
  if (options.lock) {
    // A separate statement: drizzle qualifies `for update of` with the schema, which PostgreSQL refuses.
    await db.rows(sql`select id from platform.invitations where uuid = ${token.toLowerCase()} for update`);
  }
  const [row] = await db.query((orm) =>
    orm
      .select(viewColumns)
      .from(invitations)
      .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
      .leftJoin(users, eq(users.id, invitations.invitedById))
      .where(
        and(
          eq(invitations.uuid, token.toLowerCase()),
          options.organizationId === undefined ? undefined : eq(invitations.organizationId, options.organizationId),
        ),
      ),
  );
  return row;
}

/** A pending, unexpired invitation of the organization for this email. */
export async function findOpenInvitation(
  db: Queryable,
  organizationId: number,
  email: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db.query((orm) =>
    orm
      .select()
      .from(invitations)
      .where(
        and(
          eq(invitations.organizationId, organizationId),
          sql`lower(${invitations.inviteeIdentifier}) = lower(${email})`,
          statusCondition('pending', now),
        ),
      ),
  );
  return row;
}

export async function insertInvitation(db: Queryable, values: typeof invitations.$inferInsert): Promise<InvitationRow> {
  const [row] = await db.query((orm) => orm.insert(invitations).values(values).returning());
  return row!;
}

export async function updateInvitation(
  db: Queryable,
  invitationId: number,
  values: Partial<Pick<InvitationRow, 'status' | 'expiresAt' | 'acceptedAt'>>,
): Promise<void> {
  await db.query((orm) => orm.update(invitations).set(values).where(eq(invitations.id, invitationId)));
}

export async function findUserByEmail(db: Queryable, email: string) {
  const [user] = await db.query((orm) => orm.select().from(users).where(sql`lower(${users.email}) = lower(${email})`));
  return user;
}

export async function isMemberByEmail(db: Queryable, organizationId: number, email: string): Promise<boolean> {
  const rows = await db.rows(sql`
    select 1 from platform.organization_members m join platform.users u on u.id = m.user_id
    where m.organization_id = ${organizationId} and lower(u.email) = lower(${email})`);
  return rows.length > 0;
}
