// How the caller's own account looks on the wire: the user record without the account-state flags
// (a signed-in caller is active and not deleted by definition).
import type { UserRow } from '#shared/db/platform-schema.ts';
import type { TokenPair } from '#shared/auth/tokens.ts';
import { userRecord } from '../users/user-representation.ts';

export function profileRecord(user: UserRow) {
  const { is_active: _active, is_deleted: _deleted, ...profile } = userRecord(user);
  return profile;
}

export function passwordChangedRecord(pair: TokenPair) {
  return {
    message: 'Password changed. Tokens issued before now no longer work; use these.',
    access: pair.access.token,
    refresh: pair.refresh.token,
  };
}
