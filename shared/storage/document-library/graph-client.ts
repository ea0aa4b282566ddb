// A small Microsoft Graph client over `fetch`: an app-only token from the client-credentials grant,
// cached until shortly before it expires, and JSON calls that turn Graph's error bodies and any
// transport failure into ProviderCommunicationError (502), the spec's "provider communication failure".
import { ProviderCommunicationError } from './document-library-errors.ts';

export interface GraphClientSettings {
  /** Base URL with the version, without a trailing slash (`https://graph.microsoft.com/v1.0`). */
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Read on the first token request (deployed, from Secrets Manager). */
  clientSecret: () => Promise<string>;
  requestTimeoutMs: number;
}

/** A non-2xx answer of Graph: `{error: {code, message}}`. Callers look at `graphStatus` for the answers they expect. */
export class GraphResponseError extends ProviderCommunicationError {
  constructor(
    /** Graph's status; the error itself is sent as 502 like every provider failure. */
    readonly graphStatus: number,
    readonly graphCode: string,
    readonly graphMessage: string,
    readonly request: string,
  ) {
    super('The document library provider refused the request; try again.', {
      cause: new Error(`${request} answered ${graphStatus} ${graphCode}: ${graphMessage}`),
    });
  }
}

export interface GraphRequest {
  /** JSON request body. */
  json?: unknown;
  /** Raw request body (file bytes). */
  bytes?: Buffer;
  headers?: Record<string, string>;
  /**
   * Pre-authenticated URLs (upload sessions, download and monitor URLs) must not get our token:
   * they are absolute and go to another host in real Graph.
   */
  anonymous?: boolean;
  /** Streams (downloads, upload chunks) are not cut off by the per-request timeout. */
  untimed?: boolean;
  redirect?: 'follow' | 'manual';
}

/** A throttled request is retried once when Graph asks for a pause no longer than this. */
const MAX_THROTTLE_WAIT_SECONDS = 2;

/** Refresh this long before the token's stated expiry, so a token never dies mid-request. */
const EXPIRY_MARGIN_MS = 60_000;

async function errorOf(response: Response, request: string): Promise<GraphResponseError> {
  let code = 'unknown';
  let message = response.statusText;
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // Not a Graph error body (a proxy's HTML page, say): the status says enough.
  }
  return new GraphResponseError(response.status, code, message, request);
}

export class GraphClient {
  private token: { value: string; refreshAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;

  constructor(
    private readonly settings: GraphClientSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached app token, or a new one; concurrent callers share one token request. */
  private async accessToken(): Promise<string> {
    if (this.token !== undefined && this.now() < this.token.refreshAt) return this.token.value;
    this.pendingToken ??= this.requestToken().finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  private async requestToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.settings.clientId,
      client_secret: await this.settings.clientSecret(),
      scope: `${new URL(this.settings.apiUrl).origin}/.default`,
    });
    const response = await this.send('POST token', this.settings.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      signal: AbortSignal.timeout(this.settings.requestTimeoutMs),
    });
    if (!response.ok) throw await errorOf(response, 'POST token');
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') {
      throw new ProviderCommunicationError(undefined, { cause: new Error('token answer has no access_token') });
    }
    const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in ?? 0)) * 1000;
    // A short-lived token is refreshed at half its life rather than never cached.
    const refreshIn = lifetimeMs > 2 * EXPIRY_MARGIN_MS ? lifetimeMs - EXPIRY_MARGIN_MS : lifetimeMs / 2;
    this.token = { value: body.access_token, refreshAt: this.now() + refreshIn };
    return body.access_token;
  }

  private async send(request: string, url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      throw new ProviderCommunicationError(undefined, { cause: new Error(`${request} failed`, { cause: error }) });
    }
  }

  private urlOf(pathOrUrl: string): string {
    return /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.settings.apiUrl}${pathOrUrl}`;
  }

  /**
   * Sends one request and answers the response whatever its status (the caller decides what a 404
   * means); a 401 gets one retry with a fresh token, as a token can be revoked before its expiry,
   * and a 429 one retry after a short Retry-After.
   */
  async call(method: string, pathOrUrl: string, options: GraphRequest = {}): Promise<Response> {
    const label = `${method} ${pathOrUrl.split('?')[0]}`;
    const attempt = async (): Promise<Response> => {
      const headers: Record<string, string> = { ...options.headers };
      if (!options.anonymous) headers.authorization = `Bearer ${await this.accessToken()}`;
      let body: string | Buffer | undefined;
      if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.json);
      } else if (options.bytes !== undefined) {
        body = options.bytes;
      }
      return this.send(label, this.urlOf(pathOrUrl), {
        method,
        headers,
        body,
        redirect: options.redirect ?? 'follow',
        ...(options.untimed ? {} : { signal: AbortSignal.timeout(this.settings.requestTimeoutMs) }),
      });
    };
    const response = await attempt();
    if (response.status === 429) {
      // Throttled: one more try after the pause Graph asks for, when it is short enough to wait out.
      const pause = Number(response.headers.get('retry-after') ?? '1');
      if (!Number.isFinite(pause) || pause > MAX_THROTTLE_WAIT_SECONDS) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, Math.max(pause, 0) * 1000));
      return attempt();
    }
    if (response.status !== 401 || options.anonymous) return response;
    await response.body?.cancel();
    this.token = undefined;
    return attempt();
  }

  /** A call whose 2xx answer is JSON; any other status throws GraphResponseError. */
  async json<T>(method: string, pathOrUrl: string, options: GraphRequest = {}): Promise<T> {
    const response = await this.call(method, pathOrUrl, options);
    if (!response.ok) throw await errorOf(response, `${method} ${pathOrUrl.split('?')[0]}`);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /** Raises the Graph error of a non-2xx response. */
  async failure(response: Response, request: string): Promise<never> {
    throw await errorOf(response, request);
  }
}
