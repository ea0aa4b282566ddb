// The client side of a sign-in, through openid-client: for OpenID Connect providers discovery from
// the app's settings (or the provider's well-known issuer) and ID token validation; for GitHub
// (OAuth 2 only) endpoints from settings and the account from its API (github-client.ts). Both use
// the authorization URL with state and PKCE (and a nonce for OpenID Connect). Every outbound request
// goes through the guard.
import * as client from 'openid-client';
import { AppError, BadRequestError, ValidationError } from '#shared/errors.ts';
import { guardedFetch } from '#shared/net/outbound-guard.ts';
import type { SocialAppRow } from '../social-app-repository.ts';
import { githubEndpoint, githubIdentity, githubServerMetadata } from './github-client.ts';
import type { ProviderIdentity } from './provider-identity.ts';

export type { ProviderIdentity } from './provider-identity.ts';

/** The provider could not be reached or answered nonsense: 502, as the spec's error list has it. */
export class ProviderUnavailableError extends AppError {
  constructor(message: string, cause?: unknown) {
    super(502, 'BAD_GATEWAY', message, { cause });
  }
}

const WELL_KNOWN_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  microsoft: 'https://login.microsoftonline.com/common/v2.0',
};

function settingsOf(app: Pick<SocialAppRow, 'settings'>): Record<string, unknown> {
  return typeof app.settings === 'string' ? (JSON.parse(app.settings) as Record<string, unknown>) : app.settings;
}

/** The discovery URL in settings, else the provider's well-known issuer. */
function configuredIssuer(app: Pick<SocialAppRow, 'provider' | 'settings'>): string | undefined {
  const configured = settingsOf(app).server_url;
  return typeof configured === 'string' ? configured : WELL_KNOWN_ISSUERS[app.provider];
}

function issuerUrl(app: Pick<SocialAppRow, 'provider' | 'settings'>): URL {
  const url = configuredIssuer(app);
  if (url === undefined) {
    throw new BadRequestError(`Programmatic sign-in is not available for provider "${app.provider}" (OpenID Connect providers only).`);
  }
  return new URL(url);
}

/**
 * Who vouches for the app's subjects: its issuer (OpenID Connect) or its API (GitHub). A subject is
 * unique only at its source, so an app whose source changes is another provider to its links.
 */
export function identitySource(app: Pick<SocialAppRow, 'provider' | 'settings'>): string {
  if (app.provider === 'github') return `github ${githubEndpoint(settingsOf(app), 'api_url').href}`;
  return `${app.provider} ${configuredIssuer(app) ?? ''}`;
}

/** The redirect URIs the app allows (`settings.redirect_uris`); a sign-in must use one of them exactly. */
export function assertRegisteredRedirect(app: SocialAppRow, redirectUri: string): void {
  const registered = settingsOf(app).redirect_uris;
  if (!Array.isArray(registered) || !registered.includes(redirectUri)) {
    throw ValidationError.forFields({ redirect_uri: ['This redirect URI is not registered for the provider (settings.redirect_uris).'] });
  }
}

/** A provider the client talks to, and how: OpenID Connect (ID token) or GitHub (its API). */
export interface ProviderSession {
  config: client.Configuration;
  kind: 'openid' | 'github';
  settings: Record<string, unknown>;
}

/** `secret` is the app's client secret in clear (the row holds it sealed). */
export async function providerConfiguration(app: SocialAppRow, secret: string, allowPrivate: boolean): Promise<ProviderSession> {
  const settings = settingsOf(app);
  if (app.provider === 'github') {
    const config = new client.Configuration(githubServerMetadata(settings), app.client_id, secret);
    config[client.customFetch] = guardedFetch(allowPrivate);
    config.timeout = 10;
    // Plain http only where private networks are allowed (tests, closed networks).
    if (allowPrivate) client.allowInsecureRequests(config);
    return { config, kind: 'github', settings };
  }
  const issuer = issuerUrl(app);
  try {
    const config = await client.discovery(issuer, app.client_id, secret, undefined, {
      [client.customFetch]: guardedFetch(allowPrivate),
      execute: allowPrivate && issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      timeout: 10,
    });
    return { config, kind: 'openid', settings };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new ProviderUnavailableError('The sign-in provider could not be reached.', error);
  }
}

export interface AuthorizationStart {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export async function authorizationStart(session: ProviderSession, redirectUri: string): Promise<AuthorizationStart> {
  const state = client.randomState();
  // GitHub issues no ID token, so there is no nonce to bind; the state and PKCE bind the exchange.
  const nonce = session.kind === 'openid' ? client.randomNonce() : '';
  const codeVerifier = client.randomPKCECodeVerifier();
  const parameters: Record<string, string> = {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: session.kind === 'openid' ? 'openid email profile' : 'read:user user:email',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  };
  if (nonce !== '') parameters.nonce = nonce;
  return { url: client.buildAuthorizationUrl(session.config, parameters), state, nonce, codeVerifier };
}

/**
 * Exchanges the code (with the PKCE verifier); for OpenID Connect validates the ID token (issuer,
 * audience, nonce, signature), for GitHub reads the account from its API with the access token.
 */
export async function exchangeCode(
  session: ProviderSession,
  callback: { code: string; state: string; redirectUri: string; iss?: string },
  checks: { codeVerifier: string; nonce: string },
): Promise<ProviderIdentity> {
  const { config } = session;
  const currentUrl = new URL(callback.redirectUri);
  currentUrl.searchParams.set('code', callback.code);
  currentUrl.searchParams.set('state', callback.state);
  // RFC 9207: a provider that sends `iss` on the callback expects it back. A client that did not
  // pass it on is given the provider's own: the state is bound to this one provider already, which
  // is the mix-up protection `iss` exists for.
  if (config.serverMetadata().authorization_response_iss_parameter_supported === true) {
    currentUrl.searchParams.set('iss', callback.iss ?? config.serverMetadata().issuer);
  }
  let claims: client.IDToken | undefined;
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: callback.state,
      ...(session.kind === 'openid' ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
    });
    if (session.kind === 'github') return await githubIdentity(config, tokens.access_token, session.settings);
    claims = tokens.claims();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) {
      throw new BadRequestError(`The provider refused the sign-in: ${error.error}.`);
    }
    if (error instanceof client.ClientError) {
      const cause = (error as { cause?: unknown }).cause;
      throw new BadRequestError(`The provider's answer failed validation: ${cause instanceof Error ? cause.message : error.message}`);
    }
    throw new ProviderUnavailableError('The sign-in provider could not be reached.', error);
  }
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub.trim() === '') throw new BadRequestError('The provider gave no subject (sub) for this account.');
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return {
    sub,
    email: typeof claims!.email === 'string' ? claims!.email : undefined,
    emailVerified: claims!.email_verified === true,
    givenName: text(claims!.given_name).slice(0, 150),
    familyName: text(claims!.family_name).slice(0, 150),
    preferredUsername: typeof claims!.preferred_username === 'string' ? claims!.preferred_username : undefined,
  };
}
