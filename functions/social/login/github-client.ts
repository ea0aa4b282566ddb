// GitHub sign-in, which is OAuth 2 without OpenID Connect: no discovery and no ID token. The
// authorization and token endpoints and the REST API come from the app's settings (`authorization_url`,
// `token_url`, `api_url`; GitHub's own by default), so a test or a GitHub Enterprise server can stand
// in. After the code exchange the account is `GET {api_url}/user` and its email the primary address of
// `GET {api_url}/user/emails`, verified only when GitHub says so.
import * as client from 'openid-client';
import { BadRequestError } from '#shared/errors.ts';
import type { ProviderIdentity } from './provider-identity.ts';

const GITHUB_DEFAULTS = {
  authorization_url: 'https://github.com/login/oauth/authorize',
  token_url: 'https://github.com/login/oauth/access_token',
  api_url: 'https://api.github.com',
} as const;

export type GithubEndpoint = keyof typeof GITHUB_DEFAULTS;
export const GITHUB_ENDPOINT_SETTINGS = Object.keys(GITHUB_DEFAULTS) as GithubEndpoint[];

export function githubEndpoint(settings: Record<string, unknown>, name: GithubEndpoint): URL {
  const configured = settings[name];
  return new URL(typeof configured === 'string' ? configured : GITHUB_DEFAULTS[name]);
}

/** Server metadata built from the settings: there is no discovery document to read. */
export function githubServerMetadata(settings: Record<string, unknown>): client.ServerMetadata {
  return {
    issuer: githubEndpoint(settings, 'authorization_url').origin,
    authorization_endpoint: githubEndpoint(settings, 'authorization_url').href,
    token_endpoint: githubEndpoint(settings, 'token_url').href,
  };
}

interface GithubUser {
  id?: unknown;
  login?: unknown;
  name?: unknown;
}

interface GithubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

async function githubJson(config: client.Configuration, accessToken: string, url: URL): Promise<unknown> {
  const response = await client.fetchProtectedResource(
    config,
    accessToken,
    url,
    'GET',
    undefined,
    new Headers({ accept: 'application/vnd.github+json' }),
  );
  if (!response.ok) throw new Error(`GitHub answered ${response.status} for ${url.pathname}`);
  return response.json();
}

/** The signed-in GitHub account: its id as subject, its primary email and whether GitHub verified it. */
export async function githubIdentity(
  config: client.Configuration,
  accessToken: string,
  settings: Record<string, unknown>,
): Promise<ProviderIdentity> {
  const api = githubEndpoint(settings, 'api_url');
  const base = api.href.endsWith('/') ? api.href : `${api.href}/`;
  const user = (await githubJson(config, accessToken, new URL('user', base))) as GithubUser | null;
  const emails = (await githubJson(config, accessToken, new URL('user/emails', base))) as unknown;
  const id = user?.id;
  const sub = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' ? id.trim() : '';
  if (sub === '') throw new BadRequestError('The provider gave no account id for this account.');
  const primary = Array.isArray(emails) ? (emails as GithubEmail[]).find((entry) => entry?.primary === true) : undefined;
  const name = typeof user?.name === 'string' ? user.name.trim() : '';
  const [givenName = '', ...rest] = name.split(/\s+/);
  return {
    sub,
    email: typeof primary?.email === 'string' ? primary.email : undefined,
    emailVerified: primary?.verified === true,
    givenName: givenName.slice(0, 150),
    familyName: rest.join(' ').slice(0, 150),
    preferredUsername: typeof user?.login === 'string' ? user.login : undefined,
  };
}
