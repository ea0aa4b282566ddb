// Authority over another user's account: who may add them to an organization directly (and so
// expose them to that organization's delete cascade) and who may read their email. Superusers and
// staff hold it over everyone; an admin or owner of an organization holds it over that
// organization's members. Anyone else must invite, which needs the user's consent.
import { sql } from '#shared/db/sql.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';

/** Superusers and staff administer every account. */
export function administersEveryone(caller: Principal): boolean {
  return caller.isSuperuser || caller.isStaff;
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

/** Whether the caller may add `userId` to an organization without the user's consent. */
export async function administersUser(db: Queryable, caller: Principal, userId: number): Promise<boolean> {
  if (administersEveryone(caller)) return true;
  return (await usersAdministeredBy(db, caller.id, [userId])).has(userId);
}

/**
 * Whose email among `userIds` the caller may read: their own, everyone's for superusers, staff and
 * `view_user` holders (who read it through the users API anyway), and the members of the
 * organizations the caller administers.
 */
export async function readableEmails(db: Queryable, caller: Principal, userIds: readonly number[]): Promise<Set<number>> {
  if (administersEveryone(caller) || hasPermission(caller, 'view_user')) return new Set(userIds);
  const readable = await usersAdministeredBy(db, caller.id, userIds.filter((id) => id !== caller.id));
  if (userIds.includes(caller.id)) readable.add(caller.id);
  return readable;
}
