// How groups and permissions look on the wire (DECISIONS, Identity).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
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

/** The wire shapes of GroupRecord and PermissionRecord, for the OpenAPI document and the test-time response check. */
export const groupSchema = lazySchema(() =>
  z
    .strictObject({ id: z.number().int(), name: z.string(), permissions: z.array(z.string()), users: z.array(z.string()) })
    .meta({ id: 'Group' }),
);

export const permissionSchema = lazySchema(() =>
  z.strictObject({ id: z.number().int(), codename: z.string(), name: z.string(), model: z.string() }).meta({ id: 'Permission' }),
);

export function groupRecord(group: GroupWithLists): GroupRecord {
  return { id: group.id, name: group.name, permissions: group.permissions, users: group.users };
}

export function permissionRecord(permission: PermissionRow): PermissionRecord {
  return { id: permission.id, codename: permission.codename, name: permission.name, model: permission.model };
}
