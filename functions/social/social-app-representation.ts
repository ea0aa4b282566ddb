// The answers of the social app endpoints: the public list item (settings flattened), and the full
// app with its secret masked (or echoed, on create only).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
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

// The wire shapes of the two answers below, for the OpenAPI document and the test-time response check.
export const socialAppListItemSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      provider: z.string(),
      provider_id: z.string(),
      name: z.string(),
      provider_display: z.string(),
      is_configured: z.boolean(),
      icon: z.string().nullable(),
      auto_redirect: z.boolean(),
    })
    .meta({ id: 'SocialAppListItem' }),
);

export const socialAppSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      provider: z.string(),
      provider_id: z.string(),
      name: z.string(),
      client_id: z.string(),
      secret: z.string().meta({ description: 'Masked, except in the answer to a create' }),
      key: z.string(),
      settings: z.record(z.string(), z.unknown()),
      provider_display: z.string(),
      is_configured: z.boolean(),
    })
    .meta({ id: 'SocialApp' }),
);

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
