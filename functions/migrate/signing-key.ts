// Makes sure the deployed signing-key secret holds a usable Ed25519 private JWK. The stack creates
// the secret with a placeholder; the first deployment replaces it, later ones leave it alone.
import type { JWK } from 'jose';
import { generatePrivateJwk, signingKeysFromJwk } from '#shared/auth/signing-keys.ts';

export interface SecretAccess {
  read(secretId: string): Promise<string>;
  write(secretId: string, value: string): Promise<void>;
}

export type SigningKeyOutcome = 'kept' | 'generated';

async function holdsSigningKey(value: string): Promise<boolean> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(value) as JWK;
  } catch {
    return false;
  }
  try {
    await signingKeysFromJwk(jwk);
    return true;
  } catch {
    return false;
  }
}

/**
 * A failed read (permissions, network) propagates: only a value that is present but not a key is
 * replaced, so a transient error can never rotate the key and sign every user out.
 */
export async function ensureSigningKey(secretId: string, secrets: SecretAccess): Promise<SigningKeyOutcome> {
  if (await holdsSigningKey(await secrets.read(secretId))) return 'kept';
  await secrets.write(secretId, JSON.stringify(await generatePrivateJwk()));
  return 'generated';
}
