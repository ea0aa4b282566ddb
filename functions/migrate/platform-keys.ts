// The keys the deploy migration generates: the token signing key (an Ed25519 private JWK) and the
// AES-256-GCM key of tenant secret values (32 random bytes, base64).
import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { generatePrivateJwk, signingKeysFromJwk } from '#shared/auth/signing-keys.ts';
import { ensureGeneratedSecret, type GeneratedSecretKind, type GeneratedSecretOutcome, type SecretAccess } from './generated-secret.ts';

export type { SecretAccess } from './generated-secret.ts';
export type SigningKeyOutcome = GeneratedSecretOutcome;

const signingKey: GeneratedSecretKind = {
  isValid: async (value) => {
    try {
      await signingKeysFromJwk(JSON.parse(value) as JWK);
      return true;
    } catch {
      return false;
    }
  },
  generate: async () => JSON.stringify(await generatePrivateJwk()),
};

/** The AES-256-GCM key of tenant secret values: 32 random bytes, base64. */
const secretsKey: GeneratedSecretKind = {
  isValid: async (value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32,
  generate: async () => randomBytes(32).toString('base64'),
};

export function ensureSigningKey(secretId: string, secrets: SecretAccess): Promise<SigningKeyOutcome> {
  return ensureGeneratedSecret(secretId, secrets, signingKey);
}

export function ensureSecretsKey(secretId: string, secrets: SecretAccess): Promise<GeneratedSecretOutcome> {
  return ensureGeneratedSecret(secretId, secrets, secretsKey);
}
