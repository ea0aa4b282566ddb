// How the caller's own account looks on the wire: the user record without the soft-delete flag.
import type { UserRow } from '#shared/db/platform-schema.ts';
import type { TokenPair } from '#shared/auth/tokens.ts';

export function profileRecord(user: UserRow) {
  return {
    id: user.id,
    uuid: user.uuid,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
    date_joined: user.dateJoined.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
  };
}

export function passwordChangedRecord(pair: TokenPair) {
  return {
    message: 'Password changed. Tokens issued before now no longer work; use these.',
    access: pair.access.token,
    refresh: pair.refresh.token,
  };
}
