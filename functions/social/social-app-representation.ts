// The answers of the social app endpoints: the public list item (settings flattened), and the full
// app with its secret masked (or echoed, on create only).
import { PROVIDERS, isProvider } from './social-app-rules.ts';
import type { SocialAppRow } from './social-app-repository.ts';

export const HIDDEN = '***HIDDEN***';

function settingsOf(row: SocialAppRow): Record<string, unknown> {
  return typeof row.settings === 'string' ? (JSON.parse(row.settings) as Record<string, unknown>) : row.settings;
}

function providerDisplay(row: SocialAppRow): string {
  return isProvider(row.provider) ? PROVIDERS[row.provider] : row.provider;
}

function isConfigured(row: SocialAppRow): boolean {
  const settings = settingsOf(row);
  return (
    row.client_id !== '' &&
    (row.secret_sealed !== null || row.secret !== '') &&
    (row.provider !== 'openid_connect' || typeof settings.server_url === 'string')
  );
}

/** The public list item: no secret, no client id; `icon` and `auto_redirect` lifted out of settings. */
export function socialAppListItem(row: SocialAppRow) {
  const settings = settingsOf(row);
  return {
    id: row.id,
    provider: row.provider,
    provider_id: row.provider_id,
    name: row.name,
    provider_display: providerDisplay(row),
    is_configured: isConfigured(row),
    icon: typeof settings.icon === 'string' ? settings.icon : null,
    auto_redirect: settings.auto_redirect === true,
  };
}

/** The app with `secret` masked, or (create only) `echoSecret`: the secret the client just sent. */
export function socialAppRecord(row: SocialAppRow, options: { echoSecret?: string } = {}) {
  return {
    id: row.id,
    provider: row.provider,
    provider_id: row.provider_id,
    name: row.name,
    client_id: row.client_id,
    secret: options.echoSecret ?? HIDDEN,
    key: row.key,
    settings: settingsOf(row),
    provider_display: providerDisplay(row),
    is_configured: isConfigured(row),
  };
}
