// How an organization member looks on the wire: the user's fields, the membership's flags, the
// user's global groups and their permissions on this organization's sites. The email is null to
// callers who may not read it (see access/user-authority.ts).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { MemberDetail } from './member-service.ts';

/** The wire shape of memberRecord, for the OpenAPI document and the test-time response check. */
export const memberSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      username: z.string(),
      email: z.string().nullable(),
      first_name: z.string(),
      last_name: z.string(),
      is_active: z.boolean(),
      is_admin: z.boolean(),
      is_owner: z.boolean(),
      permissions: z.array(z.string()),
      groups: z.array(z.strictObject({ id: z.number().int(), name: z.string() })),
      sites: z.array(z.strictObject({ uuid: z.string(), name: z.string(), schema_name: z.string(), permissions: z.array(z.string()) })),
      joined_at: z.string(),
    })
    .meta({ id: 'Member' }),
);

export function memberRecord(detail: MemberDetail) {
  return {
    uuid: detail.user.uuid,
    username: detail.user.username,
    email: detail.emailVisible ? detail.user.email : null,
    first_name: detail.user.firstName,
    last_name: detail.user.lastName,
    is_active: detail.user.isActive,
    is_admin: detail.member.isAdmin,
    is_owner: detail.member.isOwner,
    permissions: detail.member.permissions,
    groups: detail.groups,
    sites: detail.sites,
    joined_at: detail.member.createdAt.toISOString(),
  };
}
