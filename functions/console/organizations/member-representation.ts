// How an organization member looks on the wire: the user's fields, the membership's flags, the
// user's global groups and their permissions on this organization's sites. The email is null to
// callers who may not read it (see access/user-authority.ts).
import type { MemberDetail } from './member-service.ts';

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
