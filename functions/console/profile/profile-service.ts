// The caller's own account: read and change names and email (a new email is unverified until a
// platform sign-in provider vouches for it), and change the password with the current one. A
// password change ends every token issued before it (access and refresh alike) and hands back a
// fresh pair so the client carries on.
import { passwordWeaknesses } from '#shared/auth/password-strength.ts';
import { untilPastCutOff } from '#shared/auth/authenticate.ts';
import { hashPassword, verifyPassword } from '#shared/auth/passwords.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { TokenPair } from '#shared/auth/tokens.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import { AuthenticationFailedError, ValidationError, type FieldErrors } from '#shared/errors.ts';
import { findTakenIdentity, findUser, updateUser } from '../users/user-repository.ts';
import type { ChangePasswordBody, ProfileChanges } from './profile-schemas.ts';

export interface ProfileServicePorts {
  db: Queryable;
  passwordCost: number;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  issueTokens: (user: UserRow) => Promise<TokenPair>;
}

const TAKEN_EMAIL = 'A user with that email already exists.';
const WRONG_PASSWORD = 'Your old password was entered incorrectly. Please enter it again.';

export async function ownAccount(ports: ProfileServicePorts, caller: Principal): Promise<UserRow> {
  const user = await findUser(ports.db, caller.uuid);
  // The token was valid a moment ago; an account gone since then is a sign-in problem, not a 404.
  if (user === undefined || user.isDeleted) throw new AuthenticationFailedError('User account is disabled.');
  return user;
}

export async function changeProfile(ports: ProfileServicePorts, caller: Principal, changes: ProfileChanges): Promise<UserRow> {
  const user = await ownAccount(ports, caller);
  const newEmail = changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase() ? changes.email : undefined;
  if (newEmail !== undefined && (await findTakenIdentity(ports.db, { email: newEmail }, user.id)).emailTaken) {
    throw ValidationError.forFields({ email: [TAKEN_EMAIL] });
  }
  if (changes.first_name === undefined && changes.last_name === undefined && changes.email === undefined) return user;
  try {
    return await updateUser(ports.db, user.id, {
      firstName: changes.first_name,
      lastName: changes.last_name,
      email: changes.email,
      // Typing an address proves nothing about who reads it; only a platform provider's sign-in does.
      ...(newEmail !== undefined ? { emailVerified: false } : {}),
    });
  } catch (error) {
    if (error instanceof UniqueViolationError) throw ValidationError.forFields({ email: [TAKEN_EMAIL] });
    throw error;
  }
}

/**
 * Tokens are refused unless issued strictly after `tokens_valid_after`, to the millisecond. The
 * cut-off is now: every token issued up to this millisecond is refused, and the new pair is issued
 * once the clock has moved past it, so it is the first one valid.
 */
export async function changePassword(ports: ProfileServicePorts, caller: Principal, body: ChangePasswordBody): Promise<TokenPair> {
  const user = await ownAccount(ports, caller);
  const errors: FieldErrors = {};
  if (!(await verifyPassword(body.old_password, user.passwordHash))) errors.old_password = [WRONG_PASSWORD];
  const weaknesses = await passwordWeaknesses(ports.db, body.new_password, {
    username: user.username,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
  });
  if (weaknesses.length > 0) errors.new_password = weaknesses;
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  const passwordHash = await hashPassword(body.new_password, ports.passwordCost);
  const cutOff = ports.now();
  const updated = await updateUser(ports.db, user.id, { passwordHash, tokensValidAfter: cutOff });
  await untilPastCutOff(cutOff, ports.now, ports.sleep);
  return ports.issueTokens(updated);
}
