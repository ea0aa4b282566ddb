// The user lookups the token endpoints need; plain objects out, SQL stays here.
import { eq } from 'drizzle-orm';
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

export async function recordLogin(db: Queryable, userId: number, at: Date): Promise<void> {
  await db.query((orm) => orm.update(users).set({ lastLogin: at }).where(eq(users.id, userId)));
}
