// Sealing and opening secret values for one site. The associated data ties each sealed value to
// its site schema, scope and key, so a ciphertext copied onto another record does not open.
import type { SchemaScopedSite } from '#shared/db/sql-identifiers.ts';
import { open, seal, type SealedValue } from '#shared/crypto/secret-box.ts';
import type { Queryable } from '#shared/db/database.ts';
import { InternalError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export interface SecretsPorts {
  db: Queryable;
  /** The AES-256-GCM key (32 bytes). */
  secretsKey: () => Promise<Buffer>;
}

function associatedData(site: SchemaScopedSite, key: string, appId: number | null): string {
  return `tessera-secret:v1:${site.schemaName}:${appId ?? 'site'}:${key}`;
}

export async function sealSecretValue(
  ports: SecretsPorts,
  site: Tenant,
  key: string,
  appId: number | null,
  value: unknown,
): Promise<SealedValue> {
  return seal(await ports.secretsKey(), JSON.stringify(value), associatedData(site, key, appId));
}

export async function openSecretValue(
  ports: SecretsPorts,
  site: Tenant,
  secret: { key: string; appId: number | null; sealed: SealedValue },
): Promise<unknown> {
  let text: string;
  try {
    text = open(await ports.secretsKey(), secret.sealed, associatedData(site, secret.key, secret.appId));
  } catch (error) {
    // A wrong key or a damaged record is the operator's problem, never the caller's: a plain 500.
    throw new InternalError('Internal server error', { cause: error });
  }
  return JSON.parse(text) as unknown;
}
