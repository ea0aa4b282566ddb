// How a user looks on the wire. The password hash and internal timestamps never leave this module.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import type { UserDetail } from './user-service.ts';

export interface UserRecord {
  id: number;
  uuid: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  is_staff: boolean;
  is_superuser: boolean;
  is_deleted: boolean;
  date_joined: string;
  last_login: string | null;
}

/** The wire shape of UserRecord, for the OpenAPI document and the test-time response check. */
export const userSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      uuid: z.string(),
      username: z.string(),
      email: z.string(),
      first_name: z.string(),
      last_name: z.string(),
      is_active: z.boolean(),
      is_staff: z.boolean(),
      is_superuser: z.boolean(),
      is_deleted: z.boolean(),
      date_joined: z.string(),
      last_login: z.string().nullable(),
    })
    .meta({ id: 'User' }),
);

/** A user with the organizations and groups they belong to (userDetailRecord). */
export const userDetailSchema = lazySchema(() =>
  userSchema()
    .extend({
      organizations: z.array(z.strictObject({ slug: z.string(), name: z.string(), role: z.enum(['owner', 'admin', 'member']) })),
      groups: z.array(z.strictObject({ id: z.number().int(), name: z.string() })),
    })
    .meta({ id: 'UserDetail' }),
);

export function userRecord(user: UserRow): UserRecord {
  return {
    id: user.id,
    uuid: user.uuid,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    is_active: user.isActive,
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
    is_deleted: user.isDeleted,
    date_joined: user.dateJoined.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
  };
}

export function userDetailRecord(detail: UserDetail) {
  return { ...userRecord(detail.user), organizations: detail.organizations, groups: detail.groups };
}
