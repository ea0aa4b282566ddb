// The token blacklist. Revoking is an insert that reports whether this call revoked the token, so
// a refresh token can be claimed exactly once even when two refreshes race. A revoked family (every
// token of one sign-in) is a row of its own, `token_type` `family` with the family id as `jti`.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { revokedTokens } from '#shared/db/platform-schema.ts';
import type { TokenClaims } from './tokens.ts';

/** Returns false when the token was already revoked. */
export async function revokeToken(db: Queryable, claims: TokenClaims, userId: number | null): Promise<boolean> {
  const inserted = await db.query((orm) =>
    orm
      .insert(revokedTokens)
      .values({ jti: claims.tokenId, userId, tokenType: claims.type, expiresAt: claims.expiresAt })
      .onConflictDoNothing()
      .returning({ jti: revokedTokens.jti }),
  );
  return inserted.length === 1;
}

/**
 * Revokes every token of a family. `expiresAt` must cover the longest-lived token it may hold (the
 * refresh lifetime from now), after which the row can be purged like any other.
 */
export async function revokeFamily(db: Queryable, familyId: string, userId: number | null, expiresAt: Date): Promise<void> {
  await db.query((orm) =>
    orm.insert(revokedTokens).values({ jti: familyId, userId, tokenType: 'family', expiresAt }).onConflictDoNothing(),
  );
}

/** Whether the token, or the family it belongs to, was revoked. */
export async function isTokenRevoked(db: Queryable, tokenId: string, familyId?: string): Promise<boolean> {
  const rows = await db.rows(sql`select 1 from platform.revoked_tokens where jti in (${tokenId}, ${familyId ?? null})`);
  return rows.length > 0;
}

/** Revocations of tokens that have expired anyway are dead weight; drop them. */
export async function purgeExpiredRevocations(db: Queryable, now = new Date()): Promise<number> {
  return db.run(sql`delete from platform.revoked_tokens where expires_at < ${now.toISOString()}`);
}
