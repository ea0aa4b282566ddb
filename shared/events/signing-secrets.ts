// Sealing of function signing secrets (the HMAC key of every webhook call) with the project's
// secrets key, as tenant secret values and social app secrets are (shared/crypto/secret-box.ts).
// The sealed value is bound to the site's schema and the function's id, so a sealed secret copied
// to another function or another site's does not open. Rows written before secrets were sealed
// (tenant migration 16) keep their plaintext until start-up seals them (seal-legacy-signing-secrets.ts).
import { open, seal, type SealedValue } from '#shared/crypto/secret-box.ts';

/** The columns a function's secret is kept in: sealed, or (not sealed yet) in plain text. */
export interface StoredSigningSecret {
  signing_secret: string;
  signing_secret_sealed: SealedValue | string | null;
}

function associatedData(schemaName: string, functionId: number): string {
  return `function-signing-secret:${schemaName}:${functionId}`;
}

export function sealSigningSecret(key: Buffer, schemaName: string, functionId: number, secret: string): SealedValue {
  return seal(key, secret, associatedData(schemaName, functionId));
}

/** The secret in clear; the key is loaded only for a sealed one. */
export async function openSigningSecret(
  key: () => Promise<Buffer>,
  schemaName: string,
  functionId: number,
  stored: StoredSigningSecret,
): Promise<string> {
  const sealed = stored.signing_secret_sealed;
  if (sealed === null) return stored.signing_secret;
  const value = typeof sealed === 'string' ? (JSON.parse(sealed) as SealedValue) : sealed;
  return open(await key(), value, associatedData(schemaName, functionId));
}

/** The stored columns of a row read with `select *`. */
export function storedSigningSecretOf(row: Record<string, unknown>): StoredSigningSecret {
  return {
    signing_secret: String(row.signing_secret ?? ''),
    signing_secret_sealed: (row.signing_secret_sealed ?? null) as StoredSigningSecret['signing_secret_sealed'],
  };
}
