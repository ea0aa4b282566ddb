// A real OpenID Connect issuer on loopback (oidc-provider) for the sign-in tests: one confidential
// client, PKCE required, and an interaction that signs in whichever account the test chose, so a
// client can go from the authorization URL to the callback without a browser.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface IssuerAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

export const OIDC_CLIENT = { id: 'tessera', secret: 'tessera-client-secret-0123456789' };

export interface OidcIssuer {
  url: string;
  /** The account the next sign-in logs in as. */
  signInAs(account: IssuerAccount): void;
  /** Follows the authorization URL to the redirect and answers the callback's code and state. */
  authorize(authorizationUrl: string, redirectUri: string): Promise<{ code: string; state: string }>;
  close(): Promise<void>;
}

export async function startOidcIssuer(redirectUris: string[]): Promise<OidcIssuer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, IssuerAccount>();
  let current: IssuerAccount = { sub: 'nobody' };
  const provider = new Provider(url, {
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    conformIdTokenClaims: false,
    cookies: { keys: ['loopback-issuer-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account === undefined ? undefined : { accountId: id, claims: () => ({ ...account }) };
    },
  });
  const callback = provider.callback();
  server.on('request', (request, response) => {
    if (request.url?.startsWith('/interaction/') !== true) {
      callback(request, response);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      // The account id becomes the ID token's subject. oidc-provider refuses an empty one, so an
      // empty subject is sent as a blank (" "), which a client must treat the same.
      const accountId = current.sub === '' ? ' ' : current.sub;
      accounts.set(accountId, current);
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email profile');
      await provider.interactionFinished(
        request,
        response,
        { login: { accountId }, consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });

  return {
    url,
    signInAs: (account) => {
      current = account;
    },
    authorize: async (authorizationUrl, redirectUri) => {
      const cookies = new Map<string, string>();
      let next = authorizationUrl;
      for (let hop = 0; hop < 10; hop += 1) {
        if (next.startsWith(redirectUri)) {
          const answer = new URL(next);
          return { code: answer.searchParams.get('code') ?? '', state: answer.searchParams.get('state') ?? '' };
        }
        const response = await fetch(next, {
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
        }
        const location = response.headers.get('location');
        if (location === null) throw new Error(`the issuer stopped at ${next}: ${response.status} ${await response.text()}`);
        next = new URL(location, next).toString();
      }
      throw new Error('too many redirects at the issuer');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
