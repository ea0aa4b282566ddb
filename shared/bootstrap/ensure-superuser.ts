// Makes sure the bootstrap superuser exists. Its password comes from ADMIN_PASSWORD, the deployed
// secret, or is generated once: printed at that start and kept under DATA_DIR for later reference.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Config } from '#shared/config.ts';
import { hashPassword } from '#shared/auth/passwords.ts';
import type { Queryable } from '#shared/db/database.ts';
import { users } from '#shared/db/platform-schema.ts';
import { readSecret } from '#shared/secrets/secret-store.ts';

export interface SuperuserOutcome {
  username: string;
  created: boolean;
  /** Set only when this call generated the password. */
  generatedPassword?: string;
  passwordFile?: string;
}

async function chosenPassword(config: Config): Promise<string | undefined> {
  if (config.admin.password !== undefined) return config.admin.password;
  if (config.admin.passwordSecretArn !== undefined) return readSecret(config.admin.passwordSecretArn);
  return undefined;
}

export async function ensureSuperuser(db: Queryable, config: Config): Promise<SuperuserOutcome> {
  const { username, email } = config.admin;
  const [existing] = await db.query((orm) => orm.select({ id: users.id }).from(users).where(eq(users.username, username)));
  if (existing !== undefined) return { username, created: false };
  const configured = await chosenPassword(config);
  const password = configured ?? randomBytes(18).toString('base64url');
  const passwordHash = await hashPassword(password, config.passwordScryptCost);
  const inserted = await db.query((orm) =>
    orm
      .insert(users)
      .values({ username, email, passwordHash, isStaff: true, isSuperuser: true })
      .onConflictDoNothing()
      .returning({ id: users.id }),
  );
  // Another process created it first: theirs stands.
  if (inserted.length === 0) return { username, created: false };
  if (configured !== undefined) return { username, created: true };
  const passwordFile = path.join(config.dataDir, 'admin-password.txt');
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return { username, created: true, generatedPassword: password, passwordFile };
}
