// A GitHub stand-in on loopback for the GitHub sign-in tests: the OAuth 2 authorization and token
// endpoints (one confidential client, PKCE S256 required, codes used once, bound to their redirect
// URI) and the two REST endpoints sign-in reads, `/user` and `/user/emails`, behind the access token.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const GITHUB_CLIENT = { id: 'tessera-github', secret: 'github-client-secret-0123456789' };

export interface GithubAccount {
  /** GitHub's numeric account id; anything else tests a provider that gives none. */
  id?: number | string;
  login: string;
  name?: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface GithubStandIn {
  url: string;
  /** The app settings that point sign-in at this stand-in. */
  settings: { authorization_url: string; token_url: string; api_url: string };
  /** The account the next authorization signs in as. */
  signInAs(account: GithubAccount): void;
  /** Follows the authorization URL to its redirect and answers the callback's code and state. */
  authorize(authorizationUrl: string): Promise<{ code: string; state: string }>;
  close(): Promise<void>;
}

interface IssuedCode {
  challenge: string;
  redirectUri: string;
  account: GithubAccount;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The client's credentials from Basic authentication or the form (client_secret_post). */
function clientOf(request: IncomingMessage, form: URLSearchParams): { id: string; secret: string } {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ') === true) {
    const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':').map(decodeURIComponent);
    return { id, secret };
  }
  return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
}

export async function startGithubStandIn(): Promise<GithubStandIn> {
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, GithubAccount>();
  let current: GithubAccount = { id: 1, login: 'nobody', emails: [] };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri') ?? '';
        const challenge = url.searchParams.get('code_challenge') ?? '';
        if (
          url.searchParams.get('client_id') !== GITHUB_CLIENT.id ||
          url.searchParams.get('code_challenge_method') !== 'S256' ||
          challenge === ''
        ) {
          json(response, 400, { error: 'invalid_request' });
          return;
        }
        const code = randomBytes(16).toString('hex');
        codes.set(code, { challenge, redirectUri, account: current });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        response.writeHead(302, { location: back.toString() });
        response.end();
        return;
      }
      if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = await formOf(request);
        const client = clientOf(request, form);
        if (client.id !== GITHUB_CLIENT.id || client.secret !== GITHUB_CLIENT.secret) {
          json(response, 401, { error: 'invalid_client' });
          return;
        }
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (issued === undefined || issued.redirectUri !== form.get('redirect_uri') || issued.challenge !== challenge) {
          json(response, 400, { error: 'bad_verification_code' });
          return;
        }
        const accessToken = randomBytes(20).toString('hex');
        tokens.set(accessToken, issued.account);
        json(response, 200, { access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' });
        return;
      }
      const account = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /i, ''));
      if (account === undefined) {
        json(response, 401, { message: 'Requires authentication' });
        return;
      }
      if (request.method === 'GET' && url.pathname === '/api/v3/user') {
        json(response, 200, { id: account.id, login: account.login, name: account.name ?? null });
        return;
      }
      if (request.method === 'GET' && url.pathname === '/api/v3/user/emails') {
        json(response, 200, account.emails);
        return;
      }
      json(response, 404, { message: 'Not Found' });
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    settings: { authorization_url: `${url}/login/oauth/authorize`, token_url: `${url}/login/oauth/access_token`, api_url: `${url}/api/v3` },
    signInAs: (account) => {
      current = account;
    },
    authorize: async (authorizationUrl) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (location === null) throw new Error(`the stand-in refused the authorization: ${response.status} ${await response.text()}`);
      const answer = new URL(location);
      return { code: answer.searchParams.get('code') ?? '', state: answer.searchParams.get('state') ?? '' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
