// Keys the platform generates for itself on the first deploy (the token signing key, the secrets
// encryption key). The stack creates each secret with a placeholder; the deploy migration replaces
// a value that is not a valid key and leaves a valid one alone, so keys never rotate by accident.
export interface SecretAccess {
  read(secretId: string): Promise<string>;
  write(secretId: string, value: string): Promise<void>;
}

export type GeneratedSecretOutcome = 'kept' | 'generated';

export interface GeneratedSecretKind {
  isValid(value: string): Promise<boolean>;
  generate(): Promise<string>;
}

/**
 * A failed read (permissions, network) propagates: only a value that is present but not a key is
 * replaced, so a transient error can never rotate a key and sign every user out.
 */
export async function ensureGeneratedSecret(
  secretId: string,
  secrets: SecretAccess,
  kind: GeneratedSecretKind,
): Promise<GeneratedSecretOutcome> {
  if (await kind.isValid(await secrets.read(secretId))) return 'kept';
  await secrets.write(secretId, await kind.generate());
  return 'generated';
}
