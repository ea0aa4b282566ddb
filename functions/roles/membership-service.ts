// The rules of role memberships: bulk assign and revoke (1-100 roles × 1-100 users; pairs that
// cannot be done are reported, the rest done, existing or missing memberships skipped), the users
// of one role (add, replace, set expiry, remove) and the roles of one user (`me`: the caller).
// Roles go only to members of the site's organization: anyone else is answered exactly as a user
// who does not exist, so the answers tell nothing of who else is on the platform.
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { emptyPage } from '#shared/db/counted-page.ts';
import { NotFoundError, PermissionDeniedError, ValidationError } from '#shared/errors.ts';
import { holdsSitePermission, siteStanding } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { assertAssignsRoles, assignerReach, assignmentRefusal, type AssignerReach } from './role-access.ts';
import {
  addMemberships,
  listRoleUsers,
  listUserRoles,
  memberUserIds,
  permissionsGrantedBy,
  removeMemberships,
  removeOtherMemberships,
  rolesBySlugs,
  setMembershipExpiry,
  usersByUsernames,
  type RoleRef,
  type RoleUserFilter,
  type RoleUserRow,
  type UserRef,
  type UserRoleFilter,
  type UserRoleRow,
} from './membership-repository.ts';
import type { Page } from './role-repository.ts';

export interface Failure {
  username: string;
  role: string;
  error: string;
}

export interface BulkOutcome {
  /** Pairs done or skipped as already so. */
  succeeded: number;
  failures: Failure[];
}

async function pairs(db: Queryable, site: Tenant, roleSlugs: readonly string[], usernames: readonly string[], orHolders = false) {
  const roles = await rolesBySlugs(db, site, [...new Set(roleSlugs)]);
  const users = await usersByUsernames(db, site, [...new Set(usernames)], orHolders);
  const failures: Failure[] = [];
  for (const role of new Set(roleSlugs)) {
    for (const username of new Set(usernames)) {
      if (!roles.some((found) => found.slug === role)) failures.push({ username, role, error: 'Role not found.' });
      else if (!users.some((found) => found.username === username)) failures.push({ username, role, error: 'User not found.' });
    }
  }
  return { roles, users, failures };
}

function assertFuture(expiresAt: Date | null | undefined): void {
  if (expiresAt !== null && expiresAt !== undefined && expiresAt.getTime() <= Date.now()) {
    throw ValidationError.forFields({ expires_at: ['Must be a date in the future.'] });
  }
}

export async function assignRoles(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  input: { roles: string[]; usernames: string[]; expires_at?: Date | null },
): Promise<BulkOutcome> {
  await assertAssignsRoles(db, site, caller);
  assertFuture(input.expires_at);
  const reach = await assignerReach(db, site, caller);
  return db.transaction(async (tx) => {
    const { roles, users, failures } = await pairs(tx, site, input.roles, input.usernames);
    const granted = await permissionsGrantedBy(tx, site, roles);
    let succeeded = 0;
    for (const role of roles) {
      const allowed = users.filter((user) => {
        const refusal = assignmentRefusal(reach, user.id, granted.get(role.slug) ?? []);
        if (refusal !== undefined) failures.push({ username: user.username, role: role.slug, error: refusal });
        return refusal === undefined;
      });
      await addMemberships(
        tx,
        site,
        role,
        allowed.map((user) => user.id),
        { expiresAt: input.expires_at ?? null, assignedBy: caller.id },
      );
      succeeded += allowed.length;
    }
    return { succeeded, failures };
  });
}

export async function revokeRoles(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  input: { roles: string[]; usernames: string[] },
): Promise<BulkOutcome> {
  await assertAssignsRoles(db, site, caller);
  return db.transaction(async (tx) => {
    const { roles, users, failures } = await pairs(tx, site, input.roles, input.usernames, true);
    for (const role of roles)
      await removeMemberships(
        tx,
        site,
        role,
        users.map((user) => user.id),
      );
    return { succeeded: roles.length * users.length, failures };
  });
}

export async function existingRole(db: Queryable, site: Tenant, slug: string): Promise<RoleRef> {
  const [role] = await rolesBySlugs(db, site, [slug]);
  if (role === undefined) throw new NotFoundError(`Role "${slug}" not found.`);
  return role;
}

/** Every named user, or a 400 naming those that do not exist here (nothing is changed then). */
async function namedUsers(db: Queryable, site: Tenant, usernames: readonly string[], orHolders = false): Promise<UserRef[]> {
  const unique = [...new Set(usernames)];
  const users = await usersByUsernames(db, site, unique, orHolders);
  const missing = unique.filter((username) => !users.some((user) => user.username === username));
  if (missing.length > 0) throw ValidationError.forFields({ usernames: missing.map((username) => `User "${username}" not found.`) });
  return users;
}

export async function roleUsers(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  slug: string,
  filter: RoleUserFilter,
): Promise<Page<RoleUserRow>> {
  await assertAssignsRoles(db, site, caller);
  const readsAll = caller.isSuperuser || caller.isStaff || hasPermission(caller, 'view_user');
  return listRoleUsers(db, site, await existingRole(db, site, slug), filter, { callerId: caller.id, readsAll });
}

export type RoleUsersChange =
  | { action: 'add'; usernames: string[] }
  | { action: 'replace'; usernames: string[] }
  | { action: 'expire'; usernames: string[]; expiresAt: Date | null }
  | { action: 'remove'; usernames: string[] };

export interface RoleUsersOutcome {
  changed: number;
  skipped: number;
}

/** Giving (or extending) `role` to `users` within the assigner's reach, else 403 naming why. */
async function assertWithinReach(
  db: Queryable,
  site: Tenant,
  reach: AssignerReach,
  role: RoleRef,
  users: readonly UserRef[],
): Promise<void> {
  if (reach.unrestricted) return;
  const granted = (await permissionsGrantedBy(db, site, [role])).get(role.slug) ?? [];
  for (const user of users) {
    const refusal = assignmentRefusal(reach, user.id, granted);
    if (refusal !== undefined) throw new PermissionDeniedError(refusal);
  }
}

export async function changeRoleUsers(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  slug: string,
  change: RoleUsersChange,
): Promise<RoleUsersOutcome> {
  await assertAssignsRoles(db, site, caller);
  if (change.action === 'expire') assertFuture(change.expiresAt);
  const reach = await assignerReach(db, site, caller);
  return db.transaction(async (tx) => {
    const role = await existingRole(tx, site, slug);
    const users = await namedUsers(tx, site, change.usernames, change.action === 'remove');
    const ids = users.map((user) => user.id);
    // Removing takes nothing; adding, replacing and changing an expiry give the role.
    if (change.action !== 'remove') await assertWithinReach(tx, site, reach, role, users);
    switch (change.action) {
      case 'add': {
        const added = await addMemberships(tx, site, role, ids, { expiresAt: null, assignedBy: caller.id });
        return { changed: added, skipped: ids.length - added };
      }
      case 'replace': {
        const removed = await removeOtherMemberships(tx, site, role, ids);
        const added = await addMemberships(tx, site, role, ids, { expiresAt: null, assignedBy: caller.id });
        return { changed: removed + added, skipped: ids.length - added };
      }
      case 'expire': {
        const members = await memberUserIds(tx, site, role, ids);
        const updated = await setMembershipExpiry(tx, site, role, members, change.expiresAt);
        return { changed: updated, skipped: ids.length - updated };
      }
      case 'remove': {
        const removed = await removeMemberships(tx, site, role, ids);
        return { changed: removed, skipped: ids.length - removed };
      }
    }
  });
}

/** The roles of a user in the site: anyone reads their own (`me`); others' need manage_site_users. */
export async function userRoles(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  username: string,
  filter: UserRoleFilter,
): Promise<Page<UserRoleRow>> {
  const self = username === 'me' || username === caller.username;
  if (self) return listUserRoles(db, site, caller.id, filter);
  if (!caller.isSuperuser && !holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site_users')) {
    throw new PermissionDeniedError("Reading another user's roles needs manage_site_users or admin_site on this site.");
  }
  // A username that names nobody holds no roles here, like one of another organization's users:
  // the same empty page for both, so the answer does not tell who exists on the platform.
  const [user] = await usersByUsernames(db, site, [username], true);
  if (user === undefined) return emptyPage(filter.page);
  return listUserRoles(db, site, user.id, filter);
}
