// What a social app must hold: a known provider; OpenID Connect apps a provider_id and a discovery
// URL in settings.server_url; GitHub apps http(s) URLs where they name their endpoints; the required
// fields. Field errors come in the spec's shape.
import { ValidationError, type FieldErrors } from '#shared/errors.ts';
import type { SocialAppValues } from './social-app-repository.ts';
import { GITHUB_ENDPOINT_SETTINGS } from './login/github-client.ts';

export const PROVIDERS = {
  google: 'Google',
  github: 'GitHub',
  microsoft: 'Microsoft',
  openid_connect: 'OpenID Connect',
} as const;

export type ProviderName = keyof typeof PROVIDERS;

export function isProvider(name: string): name is ProviderName {
  return Object.hasOwn(PROVIDERS, name);
}

const REQUIRED = ['provider', 'name', 'client_id', 'secret'] as const;

/** An app as a client writes it: the stored columns and the secret in clear. */
export type SocialAppFields = SocialAppValues & { secret: string };

/** The whole app as it would be stored: every rule at once, so a client sees all its mistakes. */
export function assertValidSocialApp(values: Partial<SocialAppFields>): asserts values is SocialAppFields {
  const errors: FieldErrors = {};
  for (const field of REQUIRED) {
    if (values[field] === undefined || values[field] === '') errors[field] = ['This field is required.'];
  }
  const provider = values.provider;
  if (provider !== undefined && provider !== '' && !isProvider(provider)) {
    errors.provider = [`"${provider}" is not a valid choice. Available providers: ${Object.keys(PROVIDERS).join(', ')}.`];
  }
  if (provider === 'openid_connect') {
    if (values.provider_id === undefined || values.provider_id === '')
      errors.provider_id = ['This field is required for OpenID Connect providers.'];
    const serverUrl = values.settings?.server_url;
    if (typeof serverUrl !== 'string' || !URL.canParse(serverUrl) || !/^https?:$/.test(new URL(serverUrl).protocol)) {
      errors.settings = ['settings.server_url (the discovery URL, http or https) is required for OpenID Connect providers.'];
    }
  }
  const isWebUrl = (value: unknown) => typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (provider === 'github') {
    for (const name of GITHUB_ENDPOINT_SETTINGS) {
      const value = values.settings?.[name];
      if (value !== undefined && !isWebUrl(value))
        errors.settings = [...(errors.settings ?? []), `settings.${name} must be an http or https URL.`];
    }
  }
  const icon = values.settings?.icon;
  if (icon !== undefined && typeof icon !== 'string') errors.settings = [...(errors.settings ?? []), 'settings.icon must be a string.'];
  const autoRedirect = values.settings?.auto_redirect;
  if (autoRedirect !== undefined && typeof autoRedirect !== 'boolean') {
    errors.settings = [...(errors.settings ?? []), 'settings.auto_redirect must be a boolean.'];
  }
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
}
