// Sealing of social app secrets (the provider's client secret) with the project's secrets key, as
// tenant secret values are (shared/crypto/secret-box.ts). The sealed value is bound to the app's
// scope and id, so a sealed secret copied to another app or another site's app does not open.
import { open, seal, type SealedValue } from '#shared/crypto/secret-box.ts';

/** Whose app: the platform's own providers, or a site's (by site id). */
export type SocialSecretScope = { siteId: number } | 'platform';

function associatedData(scope: SocialSecretScope, appId: number): string {
  return `social-app-secret:${scope === 'platform' ? 'platform' : `site:${scope.siteId}`}:${appId}`;
}

export function sealSocialSecret(key: Buffer, scope: SocialSecretScope, appId: number, secret: string): SealedValue {
  return seal(key, secret, associatedData(scope, appId));
}

/** The stored secret in clear: the sealed one, or the plaintext of a row not sealed yet. */
export function openSocialSecret(
  key: Buffer,
  scope: SocialSecretScope,
  row: { id: number; secret: string; secret_sealed: SealedValue | string | null },
): string {
  if (row.secret_sealed === null) return row.secret;
  const sealed = typeof row.secret_sealed === 'string' ? (JSON.parse(row.secret_sealed) as SealedValue) : row.secret_sealed;
  return open(key, sealed, associatedData(scope, row.id));
}
