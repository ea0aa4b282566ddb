// Obtaining, rotating, verifying and revoking tokens. Refresh tokens rotate: each is good for one
// refresh, after which it is blacklisted. A second use of a rotated token means two parties hold
// it (one of them a thief), so it revokes the whole family, the successors included (OAuth 2.0
// Security BCP, refresh token reuse detection). Logout ends the family too.
import { assertAccountUsable, assertIssuedAfter } from '#shared/auth/authenticate.ts';
import { passwordDecoy, verifyPassword } from '#shared/auth/passwords.ts';
import type { Principal } from '#shared/auth/principal.ts';
import { isTokenRevoked, revokeFamily, revokeToken } from '#shared/auth/revoked-tokens.ts';
import type { TokenClaims, TokenPair } from '#shared/auth/tokens.ts';
import { AuthenticationFailedError, InvalidTokenError } from '#shared/errors.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import { findUserByUsername, findUserByUuid, recordLogin, type TokenUser } from './credentials-repository.ts';

const BAD_CREDENTIALS = 'No active account found with the given credentials';

export interface SignedInUser {
  uuid: string;
  username: string;
  email: string;
}

export interface ObtainedTokens {
  pair: TokenPair;
  user: SignedInUser;
}

export async function obtainTokens(runtime: Runtime, username: string, password: string): Promise<ObtainedTokens> {
  const user = await findUserByUsername(runtime.db, username);
  // Verify against a decoy for unknown users so timing does not tell which usernames exist.
  const hash = user?.passwordHash ?? (await passwordDecoy(runtime.config.passwordScryptCost));
  const passwordMatches = await verifyPassword(password, hash);
  if (user === undefined || !passwordMatches || !user.isActive || user.isDeleted) {
    throw new AuthenticationFailedError(BAD_CREDENTIALS);
  }
  const pair = await runtime.tokens.issuePair(user);
  // The hash was read before the slow check: a change committed meanwhile (a new password, say) wins.
  if (!(await recordLogin(runtime.db, user, pair.access.claims.issuedAt))) throw new AuthenticationFailedError(BAD_CREDENTIALS);
  return { pair, user: { uuid: user.uuid, username: user.username, email: user.email } };
}

async function usableTokenOwner(runtime: Runtime, claims: TokenClaims): Promise<TokenUser> {
  const user = await findUserByUuid(runtime.db, claims.subject);
  if (user === undefined) throw new InvalidTokenError('Token user not found');
  assertAccountUsable(user);
  assertIssuedAfter(claims, user.tokensValidAfter === null ? null : user.tokensValidAfter.getTime());
  return user;
}

/** Until when a family's revocation must be kept: no token of it outlives a refresh lifetime from now. */
function familyRevocationExpiry(runtime: Runtime): Date {
  return new Date(Date.now() + runtime.config.tokens.refreshTtlSeconds * 1000);
}

export async function refreshTokens(runtime: Runtime, refreshToken: string): Promise<TokenPair> {
  const claims = await runtime.tokens.verify(refreshToken, 'refresh');
  const user = await usableTokenOwner(runtime, claims);
  if (claims.familyId !== undefined && (await isTokenRevoked(runtime.db, claims.familyId))) {
    throw new InvalidTokenError('Token has been revoked');
  }
  // Claiming the token and issuing its successor happen together: of two racing refreshes, one wins.
  const claimed = await revokeToken(runtime.db, claims, user.id);
  if (!claimed) {
    if (claims.familyId !== undefined) await revokeFamily(runtime.db, claims.familyId, user.id, familyRevocationExpiry(runtime));
    throw new InvalidTokenError('Token is blacklisted');
  }
  return runtime.tokens.issuePair(user, claims.familyId);
}

export async function verifyToken(runtime: Runtime, token: string): Promise<TokenClaims> {
  const claims = await runtime.tokens.verify(token);
  await usableTokenOwner(runtime, claims);
  if (await isTokenRevoked(runtime.db, claims.tokenId, claims.familyId)) throw new InvalidTokenError('Token is blacklisted');
  return claims;
}

/**
 * Logout: the refresh token is revoked with its family (every token of that sign-in), and so is the
 * access token the caller presented, if any.
 */
export async function blacklistTokens(runtime: Runtime, refreshToken: string, caller?: Principal): Promise<void> {
  const claims = await runtime.tokens.verify(refreshToken, 'refresh');
  const owner = await findUserByUuid(runtime.db, claims.subject);
  await runtime.db.transaction(async (tx) => {
    await revokeToken(tx, claims, owner?.id ?? null);
    if (claims.familyId !== undefined) await revokeFamily(tx, claims.familyId, owner?.id ?? null, familyRevocationExpiry(runtime));
    if (caller !== undefined) {
      await revokeToken(
        tx,
        { subject: caller.uuid, tokenId: caller.tokenId, type: 'access', issuedAt: new Date(), expiresAt: caller.tokenExpiresAt },
        caller.id,
      );
    }
  });
}
