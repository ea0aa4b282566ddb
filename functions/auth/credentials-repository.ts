// The user lookups the token endpoints need; plain objects out, SQL stays here.
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '#shared/db/database.ts';
import { users } from '#shared/db/platform-schema.ts';

export interface TokenUser {
  id: number;
  uuid: string;
  username: string;
  email: string;
  passwordHash: string;
  isActive: boolean;
  isDeleted: boolean;
  tokensValidAfter: Date | null;
}

const tokenUserColumns = {
  id: users.id,
  uuid: users.uuid,
  username: users.username,
  email: users.email,
  passwordHash: users.passwordHash,
  isActive: users.isActive,
  isDeleted: users.isDeleted,
  tokensValidAfter: users.tokensValidAfter,
};

export async function findUserByUsername(db: Queryable, username: string): Promise<TokenUser | undefined> {
  const [user] = await db.query((orm) => orm.select(tokenUserColumns).from(users).where(eq(users.username, username)));
  return user;
}

export async function findUserByUuid(db: Queryable, uuid: string): Promise<TokenUser | undefined> {
  const [user] = await db.query((orm) => orm.select(tokenUserColumns).from(users).where(eq(users.uuid, uuid)));
  return user;
}

/**
 * Records a password sign-in, only while the account still has the password hash the sign-in checked
 * and may still sign in: false when a password change, a soft delete, a disable or an account handed
 * over to its email's owner (functions/social/login) committed after the hash was read, so tokens
 * issued past that change's cut-off are never handed out.
 */
export async function recordLogin(db: Queryable, user: { id: number; passwordHash: string }, at: Date): Promise<boolean> {
  const updated = await db.query((orm) =>
    orm
      .update(users)
      .set({ lastLogin: at })
      .where(and(eq(users.id, user.id), eq(users.passwordHash, user.passwordHash), eq(users.isActive, true), eq(users.isDeleted, false)))
      .returning({ id: users.id }),
  );
  return updated.length === 1;
}
