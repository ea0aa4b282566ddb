// How groups and permissions look on the wire (DECISIONS, Identity).
import type { GroupWithLists, PermissionRow } from './group-repository.ts';

export interface GroupRecord {
  id: number;
  name: string;
  permissions: string[];
  users: string[];
}

export interface PermissionRecord {
  id: number;
  codename: string;
  name: string;
  model: string;
}

export function groupRecord(group: GroupWithLists): GroupRecord {
  return { id: group.id, name: group.name, permissions: group.permissions, users: group.users };
}

export function permissionRecord(permission: PermissionRow): PermissionRecord {
  return { id: permission.id, codename: permission.codename, name: permission.name, model: permission.model };
}
