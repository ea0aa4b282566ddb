// Turns a bearer token into a Principal: verify the token, then one query for the user, their
// effective permissions and whether this token was revoked.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { CallerCounting, CountingSql } from '#shared/rate-limit/counters.ts';
import { AuthenticationFailedError, InvalidTokenError } from '#shared/errors.ts';
import type { Principal } from './principal.ts';
import type { TokenClaims, TokenIssuer } from './tokens.ts';

export interface PrincipalRow extends Record<string, unknown> {
  id: number;
  uuid: string;
  username: string;
  email: string;
  is_staff: boolean;
  is_superuser: boolean;
  is_active: boolean;
  is_deleted: boolean;
  /** `tokens_valid_after` in epoch milliseconds (with any microseconds as a fraction). */
  valid_after_ms: number | null;
  revoked: boolean;
  permissions: string[];
  /** The rate-limit counts, when the statement counted the request too. */
  rate_limit?: unknown;
}

/** Whether a user may hold tokens at all: active and not soft-deleted. */
export function assertAccountUsable(user: { isActive: boolean; isDeleted: boolean }): void {
  if (user.isDeleted || !user.isActive) {
    throw new AuthenticationFailedError('User account is disabled.');
  }
}

/**
 * Refuses tokens not issued strictly after the user's `tokens_valid_after` (set when an
 * administrator sets the password, on a password change, a deactivation and a soft delete).
 * Compared to the millisecond: a token from the same second as the cut-off but before it is
 * refused, one issued after it is not; one from the very same millisecond is refused, as the
 * order of the two cannot be told.
 */
export function assertIssuedAfter(claims: TokenClaims, validAfterMs: number | null): void {
  if (validAfterMs !== null && claims.issuedAt.getTime() <= validAfterMs) {
    throw new InvalidTokenError('Token was issued before the account credentials changed');
  }
}

/**
 * Waits until the clock is past `cutOff`, so tokens issued next pass assertIssuedAfter (one from the
 * cut-off's own millisecond would not): after a change that sets `tokens_valid_after` and hands out
 * a fresh pair at once.
 */
export async function untilPastCutOff(cutOff: Date, now: () => Date, sleep: (ms: number) => Promise<void>): Promise<void> {
  while (now().getTime() <= cutOff.getTime()) await sleep(1);
}

/**
 * The caller's columns: the user aliased `u`, whether this token or its family was revoked, and the
 * user's permissions, direct and through groups. Tenant requests read them in the same statement
 * as the site (see shared/tenancy/tenant-context.ts).
 */
export function principalColumns(tokenId: string, familyId?: string): SQL {
  return sql`u.id, u.uuid::text as uuid, u.username, u.email, u.is_staff, u.is_superuser, u.is_active, u.is_deleted,
      (extract(epoch from u.tokens_valid_after) * 1000)::float8 as valid_after_ms,
      exists(select 1 from platform.revoked_tokens r where r.jti in (${tokenId}, ${familyId ?? null})) as revoked,
      array(
        select p.codename from platform.permissions p
        where p.id in (
          select up.permission_id from platform.user_permissions up where up.user_id = u.id
          union
          select gp.permission_id from platform.group_permissions gp
            join platform.user_groups ug on ug.group_id = gp.group_id
          where ug.user_id = u.id
        )
      ) as permissions`;
}

/**
 * The one query behind every authenticated platform request; with `counting`, it adds the request
 * to the caller's rate limits in the same statement. The users-list benchmark's baseline runs it too.
 */
export function principalStatement(subject: string, tokenId: string, familyId?: string, counting?: CountingSql): SQL {
  if (counting === undefined) return sql`select ${principalColumns(tokenId, familyId)} from platform.users u where u.uuid = ${subject}`;
  return sql`${counting.withClause} select ${principalColumns(tokenId, familyId)}, ${counting.column} from platform.users u where u.uuid = ${subject}`;
}

/** The caller from their row, or the 401 that the token deserves: unknown user, revoked, disabled, stale. */
export function principalFromRow(row: PrincipalRow | undefined, claims: TokenClaims): Principal {
  if (row === undefined) throw new InvalidTokenError('Token user not found');
  if (row.revoked) throw new InvalidTokenError('Token has been revoked');
  assertAccountUsable({ isActive: row.is_active, isDeleted: row.is_deleted });
  assertIssuedAfter(claims, row.valid_after_ms === null ? null : Number(row.valid_after_ms));
  return principalOfRow(row, claims);
}

/** The user a principal row describes, as a caller holding `token` (a token id and its expiry). */
export function principalOfRow(row: PrincipalRow, token: { tokenId: string; expiresAt: Date }): Principal {
  return {
    id: row.id,
    uuid: row.uuid,
    username: row.username,
    email: row.email,
    isStaff: row.is_staff,
    isSuperuser: row.is_superuser,
    permissions: new Set(row.permissions),
    tokenId: token.tokenId,
    tokenExpiresAt: token.expiresAt,
  };
}

export async function authenticateBearer(db: Queryable, tokens: TokenIssuer, token: string, counting?: CallerCounting): Promise<Principal> {
  const claims = await tokens.verify(token, 'access');
  const [row] = await db.rows<PrincipalRow>(
    principalStatement(claims.subject, claims.tokenId, claims.familyId, counting?.sqlFor(claims.subject)),
  );
  counting?.settle(row?.rate_limit);
  return principalFromRow(row, claims);
}
