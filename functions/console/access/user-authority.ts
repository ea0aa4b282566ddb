// Authority over another user's account: who may add them to an organization directly (and so
// expose them to that organization's delete cascade) and who may read their email. Superusers and
// staff hold it over everyone; an admin or owner of an organization holds it over that
// organization's members. Anyone else must invite, which needs the user's consent.
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { usersAdministeredBy } from '../organizations/member-repository.ts';

/** Superusers and staff administer every account. */
export function administersEveryone(caller: Principal): boolean {
  return caller.isSuperuser || caller.isStaff;
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
  const readable = await usersAdministeredBy(
    db,
    caller.id,
    userIds.filter((id) => id !== caller.id),
  );
  if (userIds.includes(caller.id)) readable.add(caller.id);
  return readable;
}
