// The rules of the users endpoints: who sees whom, who may change what, and the soft-delete and
// restore transitions of the spec's States table.
import { emptyPage } from '#shared/db/counted-page.ts';
import { passwordWeaknesses, type PasswordOwner } from '#shared/auth/password-strength.ts';
import { hashPassword } from '#shared/auth/passwords.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import { ConflictError, NotFoundError, PermissionDeniedError, ValidationError, type FieldErrors } from '#shared/errors.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import {
  findTakenIdentity,
  findUser,
  groupsOfUser,
  insertUser,
  listUsers,
  organizationsOfUser,
  softDeleteUser,
  updateUser,
  type UserGroup,
  type UserListFilter,
  type UserOrganization,
  type UserPage,
} from './user-repository.ts';
import { findOrganizationStanding, managesOrganization } from '../access/organization-access.ts';
import type { CreateUserBody, ListUsersQuery, UserChanges } from './user-schemas.ts';

export interface UserServicePorts {
  db: Queryable;
  passwordCost: number;
  now: () => Date;
}

const TAKEN_USERNAME = 'A user with that username already exists.';
const TAKEN_EMAIL = 'A user with that email already exists.';

/** Who the caller may see in a list: everyone, only themselves, or nobody. */
type Visibility = 'all' | 'self' | 'none';

async function listFilterFor(ports: UserServicePorts, caller: Principal, query: ListUsersQuery): Promise<UserListFilter | undefined> {
  const base = {
    search: query.search,
    isActive: query.is_active,
    isStaff: query.is_staff,
    ordering: query.ordering ?? [],
    page: toPageRequest(query),
  };
  if (query.organization_slug === undefined && query.organization_uuid === undefined) {
    const visibility: Visibility = hasPermission(caller, 'view_user') ? 'all' : 'self';
    return visibility === 'all' ? base : { ...base, onlyUserId: caller.id };
  }
  const standing = await findOrganizationStanding(ports.db, query.organization_uuid ?? query.organization_slug!, caller.id);
  if (standing === undefined) return undefined;
  const visibility: Visibility = managesOrganization(caller, standing) ? 'all' : standing.membership ? 'self' : 'none';
  if (visibility === 'none') return undefined;
  return {
    ...base,
    organizationId: standing.organization.id,
    ...(visibility === 'self' ? { onlyUserId: caller.id } : {}),
  };
}

export async function listVisibleUsers(ports: UserServicePorts, caller: Principal, query: ListUsersQuery): Promise<UserPage> {
  const filter = await listFilterFor(ports, caller, query);
  // An unknown organization, or one the caller has no part in, shows nobody rather than an error
  // that would tell which organizations exist.
  if (filter === undefined) return emptyPage(toPageRequest(query));
  return listUsers(ports.db, filter);
}

function canView(caller: Principal, target: UserRow): boolean {
  return caller.id === target.id || hasPermission(caller, 'view_user');
}

/** The target as the caller may see it; a user the caller may not see does not exist for them. */
export async function findVisibleUser(ports: UserServicePorts, caller: Principal, identifier: string): Promise<UserRow> {
  const target = await findUser(ports.db, identifier);
  if (target === undefined || !canView(caller, target)) throw new NotFoundError('User not found.');
  return target;
}

export interface UserDetail {
  user: UserRow;
  organizations: UserOrganization[];
  groups: UserGroup[];
}

export async function userDetail(ports: UserServicePorts, user: UserRow): Promise<UserDetail> {
  const [organizations, groups] = await Promise.all([organizationsOfUser(ports.db, user.id), groupsOfUser(ports.db, user.id)]);
  return { user, organizations, groups };
}

/**
 * Refuses, in one answer, a username or email another account has and a password that is weak for
 * the account it will belong to (`owner`: the account as it will be after the change).
 */
async function assertAcceptable(
  ports: UserServicePorts,
  candidate: { username?: string; email?: string },
  password: { value: string; owner: PasswordOwner } | undefined,
  exceptUserId?: number,
): Promise<void> {
  const taken = await findTakenIdentity(ports.db, candidate, exceptUserId);
  const errors: FieldErrors = {};
  if (taken.usernameTaken) errors.username = [TAKEN_USERNAME];
  if (taken.emailTaken) errors.email = [TAKEN_EMAIL];
  const weaknesses = password === undefined ? [] : await passwordWeaknesses(ports.db, password.value, password.owner);
  if (weaknesses.length > 0) errors.password = weaknesses;
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
}

/** A race past the check above still ends as the same field error, from the unique index. */
function asIdentityError(error: unknown): unknown {
  if (!(error instanceof UniqueViolationError)) return error;
  if (error.constraint?.includes('username')) return ValidationError.forFields({ username: [TAKEN_USERNAME] });
  if (error.constraint?.includes('email')) return ValidationError.forFields({ email: [TAKEN_EMAIL] });
  return error;
}

function assertMayGrantFlags(caller: Principal, changes: { is_staff?: boolean; is_superuser?: boolean }): void {
  if ((changes.is_staff !== undefined || changes.is_superuser !== undefined) && !caller.isSuperuser) {
    throw new PermissionDeniedError('Only superusers may set is_staff or is_superuser.');
  }
}

/**
 * The user events of the site the user is created through (spec, Events): `before` gets the
 * validated data (never the password) and throws to abort; `after` gets the saved user.
 */
export interface UserCreationEvents {
  before(data: Record<string, unknown>): Promise<void>;
  after(user: UserRow): Promise<void>;
}

export async function createUser(
  ports: UserServicePorts,
  caller: Principal,
  body: CreateUserBody,
  events?: UserCreationEvents,
): Promise<UserRow> {
  assertMayGrantFlags(caller, body);
  await assertAcceptable(ports, body, {
    value: body.password,
    owner: { username: body.username, email: body.email, firstName: body.first_name, lastName: body.last_name },
  });
  const { password: _password, ...validated } = body;
  await events?.before(validated);
  let user: UserRow;
  try {
    user = await insertUser(ports.db, {
      username: body.username,
      email: body.email,
      passwordHash: await hashPassword(body.password, ports.passwordCost),
      firstName: body.first_name ?? '',
      lastName: body.last_name ?? '',
      isActive: body.is_active ?? true,
      isStaff: body.is_staff ?? false,
      isSuperuser: body.is_superuser ?? false,
    });
  } catch (error) {
    throw asIdentityError(error);
  }
  await events?.after(user);
  return user;
}

/** The rules of PUT and PATCH; `changes` holds only what the caller sent. */
function assertMayChange(caller: Principal, target: UserRow, changes: UserChanges): void {
  const self = caller.id === target.id;
  if (!self && !hasPermission(caller, 'change_user')) {
    throw new PermissionDeniedError('You do not have permission to change this user.');
  }
  if (target.isSuperuser && !caller.isSuperuser) {
    throw new PermissionDeniedError('Only superusers may change a superuser.');
  }
  assertMayGrantFlags(caller, changes);
  if (self && changes.is_active !== undefined) {
    throw new PermissionDeniedError('You cannot change your own active status.');
  }
  if (self && changes.password !== undefined) {
    // Without the current password a stolen token could take the account over.
    throw new PermissionDeniedError('Change your own password at /api/profile/change-password/ with your current password.');
  }
}

export async function changeUser(ports: UserServicePorts, caller: Principal, target: UserRow, changes: UserChanges): Promise<UserRow> {
  assertMayChange(caller, target, changes);
  if (Object.values(changes).every((value) => value === undefined)) return target;
  await assertAcceptable(
    ports,
    {
      username: changes.username !== undefined && changes.username !== target.username ? changes.username : undefined,
      email: changes.email !== undefined && changes.email.toLowerCase() !== target.email.toLowerCase() ? changes.email : undefined,
    },
    changes.password === undefined
      ? undefined
      : {
          value: changes.password,
          owner: {
            username: changes.username ?? target.username,
            email: changes.email ?? target.email,
            firstName: changes.first_name ?? target.firstName,
            lastName: changes.last_name ?? target.lastName,
          },
        },
    target.id,
  );
  const now = ports.now();
  const emailChanged = changes.email !== undefined && changes.email.toLowerCase() !== target.email.toLowerCase();
  try {
    return await updateUser(ports.db, target.id, {
      username: changes.username,
      email: changes.email,
      // An administrator's word is no proof of who reads an address (change_user is not only for
      // superusers): a new email is unverified until a platform sign-in provider vouches for it.
      ...(emailChanged ? { emailVerified: false } : {}),
      firstName: changes.first_name,
      lastName: changes.last_name,
      isActive: changes.is_active,
      isStaff: changes.is_staff,
      isSuperuser: changes.is_superuser,
      // A password set by an administrator ends every session the old password opened, and a
      // deactivation ends them too, so reactivating the account does not bring them back.
      ...(changes.password !== undefined || (changes.is_active === false && target.isActive) ? { tokensValidAfter: now } : {}),
      ...(changes.password !== undefined ? { passwordHash: await hashPassword(changes.password, ports.passwordCost) } : {}),
    });
  } catch (error) {
    throw asIdentityError(error);
  }
}

export async function deleteUser(ports: UserServicePorts, caller: Principal, identifier: string): Promise<void> {
  const target = await findVisibleUser(ports, caller, identifier);
  if (target.isDeleted) throw new NotFoundError('User not found.');
  if (!hasPermission(caller, 'delete_user')) throw new PermissionDeniedError('You do not have permission to delete users.');
  if (target.id === caller.id) throw new PermissionDeniedError('You cannot delete your own account.');
  if (target.isSuperuser && !caller.isSuperuser) throw new PermissionDeniedError('Only superusers may delete a superuser.');
  await softDeleteUser(ports.db, target.id, ports.now());
}

export async function restoreUser(ports: UserServicePorts, identifier: string): Promise<UserRow> {
  const target = await findUser(ports.db, identifier);
  if (target === undefined) throw new NotFoundError('User not found.');
  if (!target.isDeleted) throw new ConflictError('User is not deleted.');
  return updateUser(ports.db, target.id, { isDeleted: false, isActive: true, deletedAt: null });
}
