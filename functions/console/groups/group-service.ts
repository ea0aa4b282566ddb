// The rules of groups and permissions. Anyone signed in may read groups and the permission
// catalogue; member lists follow the user-list rule (without `view_user` a caller sees only
// themselves). Superusers and holders of `change_user` manage groups, and a non-superuser can never
// use a group to gain or hand out more than they hold: every permission of the group, before and
// after the change, must be one they hold, and they cannot add themselves to a group.
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, PermissionDeniedError, ValidationError, type FieldErrors } from '#shared/errors.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import {
  deleteGroup,
  findGroup,
  findPermission,
  groupNameTaken,
  insertGroup,
  listGroups,
  listPermissions,
  permissionsByCodename,
  replaceGroup,
  usersByUsername,
  type GroupContents,
  type GroupWithLists,
  type Page,
  type PermissionRow,
} from './group-repository.ts';
import { parseId, type GroupBody, type ListGroupsQuery, type ListPermissionsQuery } from './group-schemas.ts';

export interface GroupServicePorts {
  db: Queryable;
}

const TAKEN_NAME = 'A group with that name already exists.';

/** Member lists as the caller may see them. */
function visibleToCaller(caller: Principal, group: GroupWithLists): GroupWithLists {
  if (hasPermission(caller, 'view_user') || hasPermission(caller, 'change_user')) return group;
  return { ...group, users: group.users.filter((username) => username === caller.username) };
}

export async function listVisibleGroups(
  ports: GroupServicePorts,
  caller: Principal,
  query: ListGroupsQuery,
): Promise<Page<GroupWithLists>> {
  const page = await listGroups(ports.db, { search: query.search, page: toPageRequest(query) });
  return { ...page, rows: page.rows.map((group) => visibleToCaller(caller, group)) };
}

async function existingGroup(ports: GroupServicePorts, idText: string): Promise<GroupWithLists> {
  const id = parseId(idText);
  const group = id === undefined ? undefined : await findGroup(ports.db, id);
  if (group === undefined) throw new NotFoundError('Group not found.');
  return group;
}

export async function visibleGroup(ports: GroupServicePorts, caller: Principal, idText: string): Promise<GroupWithLists> {
  return visibleToCaller(caller, await existingGroup(ports, idText));
}

function assertManages(caller: Principal): void {
  if (!hasPermission(caller, 'change_user')) throw new PermissionDeniedError('You do not have permission to manage groups.');
}

/** Refuses a non-superuser any group holding a permission they lack themselves. */
function assertHoldsAll(caller: Principal, codenames: string[]): void {
  if (caller.isSuperuser) return;
  const lacking = codenames.filter((codename) => !caller.permissions.has(codename));
  if (lacking.length > 0) {
    throw new PermissionDeniedError(`Only superusers may manage groups with permissions they do not hold: ${lacking.sort().join(', ')}.`);
  }
}

function assertNotJoining(caller: Principal, before: string[], after: string[]): void {
  if (caller.isSuperuser) return;
  if (after.includes(caller.username) && !before.includes(caller.username)) {
    throw new PermissionDeniedError('Only superusers may add themselves to a group.');
  }
}

/** Resolves codenames and usernames to ids; unknown ones are a 400 naming each of them. */
async function resolveContents(ports: GroupServicePorts, body: GroupBody, exceptGroupId?: number): Promise<GroupContents> {
  const found = await permissionsByCodename(ports.db, body.permissions);
  const members = await usersByUsername(ports.db, body.users);
  const taken = await groupNameTaken(ports.db, body.name, exceptGroupId);
  const errors: FieldErrors = {};
  if (taken) errors.name = [TAKEN_NAME];
  const unknownPermissions = body.permissions.filter((codename) => !found.some((row) => row.codename === codename));
  if (unknownPermissions.length > 0) errors.permissions = [`Unknown permission codenames: ${unknownPermissions.join(', ')}.`];
  const unknownUsers = body.users.filter((username) => !members.some((row) => row.username === username));
  if (unknownUsers.length > 0) errors.users = [`Unknown usernames: ${unknownUsers.join(', ')}.`];
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  return { name: body.name, permissionIds: found.map((row) => row.id), userIds: members.map((row) => row.id) };
}

/** A race past the name check still ends as the same field error, from the unique index. */
function asNameError(error: unknown): unknown {
  return error instanceof UniqueViolationError ? ValidationError.forFields({ name: [TAKEN_NAME] }) : error;
}

export async function createGroup(ports: GroupServicePorts, caller: Principal, body: GroupBody): Promise<GroupWithLists> {
  assertManages(caller);
  const contents = await resolveContents(ports, body);
  assertHoldsAll(caller, body.permissions);
  assertNotJoining(caller, [], body.users);
  try {
    return (await findGroup(ports.db, await insertGroup(ports.db, contents)))!;
  } catch (error) {
    throw asNameError(error);
  }
}

export async function replaceGroupContents(
  ports: GroupServicePorts,
  caller: Principal,
  idText: string,
  body: GroupBody,
): Promise<GroupWithLists> {
  assertManages(caller);
  const group = await existingGroup(ports, idText);
  const contents = await resolveContents(ports, body, group.id);
  assertHoldsAll(caller, [...group.permissions, ...body.permissions]);
  assertNotJoining(caller, group.users, body.users);
  try {
    if (!(await replaceGroup(ports.db, group.id, contents))) throw new NotFoundError('Group not found.');
  } catch (error) {
    throw asNameError(error);
  }
  return (await findGroup(ports.db, group.id))!;
}

export async function removeGroup(ports: GroupServicePorts, caller: Principal, idText: string): Promise<void> {
  assertManages(caller);
  const group = await existingGroup(ports, idText);
  assertHoldsAll(caller, group.permissions);
  if (!(await deleteGroup(ports.db, group.id))) throw new NotFoundError('Group not found.');
}

export async function listPermissionCatalogue(ports: GroupServicePorts, query: ListPermissionsQuery): Promise<Page<PermissionRow>> {
  return listPermissions(ports.db, { model: query.model, search: query.search, page: toPageRequest(query) });
}

export async function permissionDetail(ports: GroupServicePorts, idText: string): Promise<PermissionRow> {
  const id = parseId(idText);
  const permission = id === undefined ? undefined : await findPermission(ports.db, id);
  if (permission === undefined) throw new NotFoundError('Permission not found.');
  return permission;
}
