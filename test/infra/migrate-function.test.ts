import { sql } from 'drizzle-orm';
import type { JWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { runDeployMigration } from '#functions/migrate/deploy-migration.ts';
import type { SecretAccess } from '#functions/migrate/platform-keys.ts';
import { SECRETS_KEY_PLACEHOLDER, SIGNING_KEY_PLACEHOLDER } from '#infra/aws/platform-secrets.ts';
import { verifyPassword } from '#shared/auth/passwords.ts';
import { signingKeysFromJwk } from '#shared/auth/signing-keys.ts';
import { loadConfig } from '#shared/config.ts';
import type { SealedValue } from '#shared/crypto/secret-box.ts';
import { connectPglite, type Database } from '#shared/db/database.ts';
import { openSocialSecret } from '#shared/social/social-app-secret.ts';

const SIGNING_KEY_ARN = 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:signing-key';
const SECRETS_KEY_ARN = 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:secrets-key';
const placeholders = () => ({ [SIGNING_KEY_ARN]: SIGNING_KEY_PLACEHOLDER, [SECRETS_KEY_ARN]: SECRETS_KEY_PLACEHOLDER });

/** Secrets Manager as a map, counting writes; the deploy migration only sees SecretAccess. */
function fakeSecrets(initial: Record<string, string>): SecretAccess & { values: Map<string, string>; writes: number } {
  const values = new Map(Object.entries(initial));
  return {
    values,
    writes: 0,
    async read(secretId) {
      const value = values.get(secretId);
      if (value === undefined) throw new Error(`ResourceNotFoundException: ${secretId}`);
      return value;
    },
    async write(secretId, value) {
      this.writes += 1;
      values.set(secretId, value);
    },
  };
}

const config = loadConfig({
  JWT_SIGNING_KEY_SECRET_ARN: SIGNING_KEY_ARN,
  SECRETS_ENCRYPTION_KEY_SECRET_ARN: SECRETS_KEY_ARN,
  ADMIN_USERNAME: 'root',
  ADMIN_EMAIL: 'root@example.org',
  ADMIN_PASSWORD: 'deploy-time-password',
  PASSWORD_SCRYPT_COST: '1024',
});

/** For runs that must stop before touching the database: any use fails the test. */
const untouchedDb = new Proxy({} as Database, {
  get(_target, member) {
    throw new Error(`the database was used (${String(member)})`);
  },
});

describe('deploy migration', () => {
  const opened: Database[] = [];
  const freshDatabase = async (): Promise<Database> => {
    const db = await connectPglite('memory://');
    opened.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });

  it('replaces the placeholders with an Ed25519 key and a 32-byte secrets key, migrates, seeds the password word lists, and creates the superuser', async () => {
    // Prepare
    const db = await freshDatabase();
    const secrets = fakeSecrets(placeholders());
    // Act
    const result = await runDeployMigration(config, { db, secrets });
    // Assess
    expect(result).toEqual({
      signingKey: 'generated',
      secretsKey: 'generated',
      passwordWords: { seeded: true, words: expect.any(Number) as number },
      superuser: { username: 'root', created: true },
    });
    const [words] = await db.rows<{ count: string }>(sql`select count(*) from platform.password_words`);
    expect(Number(words!.count)).toBe(result.passwordWords.words);
    expect(Buffer.from(secrets.values.get(SECRETS_KEY_ARN)!, 'base64')).toHaveLength(32);
    const keys = await signingKeysFromJwk(JSON.parse(secrets.values.get(SIGNING_KEY_ARN)!) as JWK);
    expect(keys.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    const [admin] = await db.rows<{ is_superuser: boolean; password_hash: string }>(
      sql`select is_superuser, password_hash from platform.users where username = 'root'`,
    );
    expect(admin?.is_superuser).toBe(true);
    expect(await verifyPassword('deploy-time-password', admin!.password_hash)).toBe(true);
  });

  it('changes nothing on a second run', async () => {
    // Prepare
    const db = await freshDatabase();
    const secrets = fakeSecrets(placeholders());
    await runDeployMigration(config, { db, secrets });
    const keys = [secrets.values.get(SIGNING_KEY_ARN), secrets.values.get(SECRETS_KEY_ARN)];
    // Act
    const again = await runDeployMigration(config, { db, secrets });
    // Assess
    expect(again).toEqual({
      signingKey: 'kept',
      secretsKey: 'kept',
      passwordWords: { seeded: false, words: expect.any(Number) as number },
      superuser: { username: 'root', created: false },
    });
    expect([secrets.values.get(SIGNING_KEY_ARN), secrets.values.get(SECRETS_KEY_ARN)]).toEqual(keys);
    expect(secrets.writes).toBe(2);
  });

  it('seals social app secrets stored in clear with the key from its secret', async () => {
    // Prepare: a deployed database with a provider written before secrets were sealed.
    const db = await freshDatabase();
    const secrets = fakeSecrets(placeholders());
    await runDeployMigration(config, { db, secrets });
    await db.run(
      sql`insert into platform.social_apps (provider, name, client_id, secret) values ('google', 'Old', 'old-client', 'old-plain-secret')`,
    );
    // Act
    await runDeployMigration(config, { db, secrets });
    // Assess
    const [row] = await db.rows<{ id: number; secret: string; secret_sealed: SealedValue }>(
      sql`select id, secret, secret_sealed from platform.social_apps where client_id = 'old-client'`,
    );
    expect(row!.secret).toBe('');
    const key = Buffer.from(secrets.values.get(SECRETS_KEY_ARN)!, 'base64');
    expect(openSocialSecret(key, 'platform', row!)).toBe('old-plain-secret');
  });

  it('never rotates the key when the secret cannot be read', async () => {
    // Prepare: no such secret, so the read fails (as it would without permission).
    const secrets = fakeSecrets({});
    // Act
    const run = runDeployMigration(config, { db: untouchedDb, secrets });
    // Assess
    await expect(run).rejects.toThrow(/ResourceNotFoundException/);
    expect(secrets.writes).toBe(0);
  });

  it('refuses to run without a configured superuser password', async () => {
    const withoutPassword = loadConfig({ JWT_SIGNING_KEY_SECRET_ARN: SIGNING_KEY_ARN, SECRETS_ENCRYPTION_KEY_SECRET_ARN: SECRETS_KEY_ARN });
    const secrets = fakeSecrets(placeholders());
    await expect(runDeployMigration(withoutPassword, { db: untouchedDb, secrets })).rejects.toThrow(/ADMIN_PASSWORD_SECRET_ARN/);
    expect(secrets.writes).toBe(0);
  });
});
