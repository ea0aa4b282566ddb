// How the caller's own account looks on the wire: the user record without the account-state flags
// (a signed-in caller is active and not deleted by definition).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import type { TokenPair } from '#shared/auth/tokens.ts';
import { userRecord, userSchema } from '../users/user-representation.ts';

/** The wire shape of profileRecord: the user without the flags a caller cannot change about themselves. */
export const profileSchema = lazySchema(() => userSchema().omit({ is_active: true, is_deleted: true }).meta({ id: 'Profile' }));

/** The wire shape of passwordChangedRecord. */
export const passwordChangedSchema = lazySchema(() =>
  z.strictObject({ message: z.string(), access: z.string(), refresh: z.string() }).meta({ id: 'PasswordChanged' }),
);

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
