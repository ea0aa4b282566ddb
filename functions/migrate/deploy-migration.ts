// What one deployment does to the platform's state before the API takes traffic: the signing key
// and the secrets key exist, platform and tenant schemas are current (social app secrets and function
// signing secrets stored before they were sealed are sealed), the password-strength word lists are
// stored, and the superuser exists. Safe to run again.
import type { Config } from '#shared/config.ts';
import { seedPasswordWords, type PasswordWordsSeeding } from '#shared/auth/seed-password-words.ts';
import { ensureSuperuser } from '#shared/bootstrap/ensure-superuser.ts';
import type { Database } from '#shared/db/database.ts';
import { parseSecretsKey } from '#shared/crypto/secrets-key.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';
import { sealLegacySigningSecrets } from '#shared/events/seal-legacy-signing-secrets.ts';
import { sealLegacySocialSecrets } from '#shared/social/seal-legacy-social-secrets.ts';
import { ensureSecretsKey, ensureSigningKey, type SecretAccess, type SigningKeyOutcome } from './platform-keys.ts';

export interface DeployMigrationResult {
  signingKey: SigningKeyOutcome;
  secretsKey: SigningKeyOutcome;
  passwordWords: PasswordWordsSeeding;
  superuser: { username: string; created: boolean };
}

export interface DeployMigrationPorts {
  db: Database;
  secrets: SecretAccess;
  /** Platform migrations folder; beside the bundle when deployed. */
  migrationsDir?: string;
}

export async function runDeployMigration(config: Config, ports: DeployMigrationPorts): Promise<DeployMigrationResult> {
  const secretId = config.tokens.signingKeySecretArn;
  if (secretId === undefined) throw new Error('JWT_SIGNING_KEY_SECRET_ARN must be set for the deploy migration');
  // Deployed, the superuser's password must come from its secret: a generated one would only be
  // written to the function's ephemeral disk and be lost.
  if (config.admin.password === undefined && config.admin.passwordSecretArn === undefined) {
    throw new Error('ADMIN_PASSWORD_SECRET_ARN must be set for the deploy migration');
  }
  const secretsKeyId = config.secretsKey.secretArn;
  if (secretsKeyId === undefined) throw new Error('SECRETS_ENCRYPTION_KEY_SECRET_ARN must be set for the deploy migration');
  const signingKey = await ensureSigningKey(secretId, ports.secrets);
  const secretsKey = await ensureSecretsKey(secretsKeyId, ports.secrets);
  await prepareDatabase(ports.db, ports.migrationsDir);
  // The key as just ensured, read through the same port.
  const readSecretsKey = async () => parseSecretsKey(await ports.secrets.read(secretsKeyId), 'SECRETS_ENCRYPTION_KEY_SECRET_ARN');
  await sealLegacySocialSecrets(ports.db, readSecretsKey);
  await sealLegacySigningSecrets(ports.db, readSecretsKey);
  const passwordWords = await seedPasswordWords(ports.db);
  const { username, created } = await ensureSuperuser(ports.db, config);
  return { signingKey, secretsKey, passwordWords, superuser: { username, created } };
}
