// A loopback stand-in for the Microsoft Graph endpoints the document-library adapter calls: the
// client-credentials token endpoint, sites and drives, items by path (content, upload sessions,
// metadata, delete), folders, copy with its monitor URL, JSON batches, sharing (createLink, invite),
// users and guest invitations. It keeps state (StandInState), logs every call, and has switches for
// the failure modes: a site whose library is not provisioned, 5xx answers, guest propagation that
// takes N look-ups or never completes.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StandInState, type StandInItem, type StandInSite } from './graph-stand-in-state.ts';

export const STAND_IN_CLIENT = { tenantId: 'stand-in-tenant', clientId: 'tessera-test-client', clientSecret: 'stand-in-secret' };
export const STAND_IN_HOSTNAME = 'contoso.sharepoint.com';

export interface LoggedCall {
  method: string;
  /** Decoded path without the query, e.g. `/v1.0/drives/b!x/root:/a b.docx:/content`. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON, or `<n bytes>` for other bodies. */
  body?: unknown;
  /** Whether a bearer token came along. */
  authorized: boolean;
  /** Set on the sub-requests of a JSON batch. */
  inBatch?: boolean;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface GraphStandIn {
  url: string;
  state: StandInState;
  calls: LoggedCall[];
  /** Tokens handed out by the token endpoint. */
  tokensIssued: number;
  /** Look-ups an invited guest stays hidden for; `never` keeps them hidden for good. */
  guestPropagation: number | 'never';
  /** Monitor polls a copy answers `inProgress` before it is `completed`. */
  copyPollsBeforeDone: number;
  /** Environment for loadConfig that points the platform at this stand-in. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** The SharePoint site of a Tessera site, as the default naming rule finds it. */
  provisionSite(siteSlug: string, options?: { drive?: boolean }): StandInSite;
  /** The next `times` requests whose `METHOD /path` matches answer `status` (with `headers`). */
  failNext(match: RegExp, status?: number, times?: number, headers?: Record<string, string>): void;
  /** Invalidates every token handed out, as a revoked or rotated secret would. */
  revokeTokens(): void;
  /** Upload sessions created and neither finished nor cancelled. */
  openUploadSessions(): number;
  /** The stored file at a storage key in a site's library. */
  file(site: StandInSite, key: string): StandInItem | undefined;
  callsMatching(method: string, path: RegExp): LoggedCall[];
  close(): Promise<void>;
}

const notFound = (message = 'The resource could not be found.'): Answer => ({
  status: 404,
  body: { error: { code: 'itemNotFound', message } },
});
const badRequest = (message: string): Answer => ({ status: 400, body: { error: { code: 'invalidRequest', message } } });

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function jsonOf(body: Buffer): Record<string, unknown> {
  return body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
}

/** `/a%20b/c.docx` → `/a b/c.docx`. */
function decodePath(raw: string): string {
  return raw.split('/').map(decodeURIComponent).join('/');
}

export async function startGraphStandIn(): Promise<GraphStandIn> {
  const tokens = new Set<string>();
  const failures: Array<{ match: RegExp; status: number; remaining: number; headers: Record<string, string> }> = [];
  const uploads = new Map<string, { driveId: string; path: string; received: Buffer[]; next: number }>();
  const copies = new Map<string, { polls: number; resourceId: string; run: () => string }>();
  let baseUrl = '';

  const standIn = {} as GraphStandIn;
  const calls: LoggedCall[] = [];

  function issueToken(form: URLSearchParams): Answer {
    const valid =
      form.get('grant_type') === 'client_credentials' &&
      form.get('client_id') === STAND_IN_CLIENT.clientId &&
      form.get('client_secret') === STAND_IN_CLIENT.clientSecret &&
      form.get('scope') === `${baseUrl}/.default`;
    if (!valid) return { status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials or scope.' } };
    const token = randomUUID();
    tokens.add(token);
    standIn.tokensIssued += 1;
    return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, access_token: token } };
  }

  function driveItem(driveId: string, itemId: string): StandInItem | undefined {
    const item = standIn.state.items.get(itemId);
    return item?.driveId === driveId ? item : undefined;
  }

  /** Everything under `/v1.0`, also the sub-requests of a batch. */
  function graph(
    method: string,
    rawPath: string,
    query: URLSearchParams,
    body: Buffer,
    headers: Record<string, string | undefined>,
  ): Answer {
    const state = standIn.state;
    let m: RegExpExecArray | null;
    m = method === 'GET' ? /^\/sites\/([^/:]+):(\/.*)$/.exec(rawPath) : null;
    if (m) {
      const site = state.sites.find((s) => s.hostname === m![1] && s.path === decodePath(m![2]!));
      return site === undefined
        ? notFound('Requested site could not be found')
        : { status: 200, body: { id: site.id, webUrl: `${baseUrl}${site.path}` } };
    }
    m = method === 'GET' ? /^\/sites\/([^/]+)\/drive$/.exec(rawPath) : null;
    if (m) {
      const site = state.sites.find((s) => s.id === decodeURIComponent(m![1]!));
      if (site?.driveId === undefined) return notFound('Drive not found');
      return { status: 200, body: { id: site.driveId, driveType: 'documentLibrary' } };
    }
    m = /^\/drives\/([^/]+)\/root:(\/[^:]*?)(?::\/(content|createUploadSession))?:?$/.exec(rawPath);
    if (m) {
      const [, driveId, encodedPath, action] = m as unknown as [string, string, string, string | undefined];
      if (state.siteOfDrive(driveId) === undefined) return notFound('Drive not found');
      const path = decodePath(encodedPath);
      const item = state.itemAt(driveId, path);
      if (method === 'PUT' && action === 'content') {
        const { item: stored, created } = state.putItem(driveId, path, { bytes: body });
        return { status: created ? 201 : 200, body: state.representation(stored) };
      }
      if (method === 'POST' && action === 'createUploadSession') {
        const session = randomUUID();
        uploads.set(session, { driveId, path, received: [], next: 0 });
        return {
          status: 200,
          body: {
            uploadUrl: `${baseUrl}/upload/${session}`,
            expirationDateTime: new Date(Date.now() + 3600_000).toISOString(),
            nextExpectedRanges: ['0-'],
          },
        };
      }
      if (action !== undefined) return badRequest('Unsupported action');
      if (item === undefined) return notFound();
      if (method === 'GET') return { status: 200, body: state.representation(item) };
      if (method === 'DELETE') {
        state.removeItem(item);
        return { status: 204 };
      }
      return { status: 405, body: { error: { code: 'invalidRequest', message: 'Method not allowed' } } };
    }
    m = method === 'GET' ? /^\/drives\/([^/]+)\/root$/.exec(rawPath) : null;
    if (m) {
      const root = state.itemAt(m[1]!, '/');
      return root === undefined ? notFound('Drive not found') : { status: 200, body: state.representation(root) };
    }
    m = method === 'POST' ? /^\/drives\/([^/]+)\/items\/([^/]+)\/(children|copy|createLink|invite)$/.exec(rawPath) : null;
    if (m) {
      const [, driveId, itemId, action] = m as unknown as [string, string, string, string];
      const item = driveItem(driveId, itemId);
      if (item === undefined) return notFound();
      const request = jsonOf(body);
      if (action === 'children') {
        const path = `${item.path === '/' ? '' : item.path}/${String(request.name)}`;
        if (state.itemAt(driveId, path) !== undefined)
          return { status: 409, body: { error: { code: 'nameAlreadyExists', message: 'Name already exists' } } };
        return { status: 201, body: state.representation(state.putItem(driveId, path, { folder: true }).item) };
      }
      if (action === 'copy') {
        const parent = request.parentReference as { driveId?: string; id?: string } | undefined;
        const target = parent?.id === undefined ? undefined : driveItem(parent.driveId ?? driveId, parent.id);
        if (target === undefined || !target.folder) return badRequest('parentReference must name a folder');
        const name = typeof request.name === 'string' ? request.name : item.path.slice(item.path.lastIndexOf('/') + 1);
        const destination = `${target.path === '/' ? '' : target.path}/${name}`;
        if (state.itemAt(target.driveId, destination) !== undefined && query.get('@microsoft.graph.conflictBehavior') !== 'replace') {
          return { status: 409, body: { error: { code: 'nameAlreadyExists', message: 'Name already exists' } } };
        }
        const copyId = randomUUID();
        const bytes = Buffer.from(item.bytes);
        copies.set(copyId, { polls: 0, resourceId: '', run: () => state.putItem(target.driveId, destination, { bytes }).item.id });
        return { status: 202, headers: { location: `${baseUrl}/monitor/${copyId}` } };
      }
      if (action === 'createLink') {
        if (request.type !== 'view' && request.type !== 'edit') return badRequest('type must be view or edit');
        const { permission, created } = state.link(item, String(request.type), String(request.scope ?? 'anonymous'));
        return { status: created ? 201 : 200, body: { id: permission.id, roles: permission.roles, link: permission.link } };
      }
      const recipients = (request.recipients ?? []) as Array<{ email?: string }>;
      if (!Array.isArray(request.roles) || recipients.length === 0) return badRequest('roles and recipients are required');
      if (recipients.some((recipient) => recipient.email === undefined || !state.resolvable(recipient.email))) {
        return badRequest('One or more users could not be resolved.');
      }
      const granted = recipients.map((recipient) =>
        state.grant(item, recipient.email!, request.roles as string[], request.requireSignIn === true, request.sendInvitation === true),
      );
      return {
        status: 200,
        body: { value: granted.map((p) => ({ id: p.id, roles: p.roles, grantedToV2: { user: { email: p.email } } })) },
      };
    }
    if (method === 'GET' && rawPath === '/users') {
      const literals = [...(query.get('$filter') ?? '').matchAll(/'((?:[^']|'')*)'/g)].map((found) => found[1]!.replaceAll("''", "'"));
      const emails = [...new Set(literals)];
      const found = emails.map((email) => state.lookUp(email)).filter((user) => user !== undefined);
      return {
        status: 200,
        body: { value: found.map((user) => ({ id: user.id, mail: user.email, userPrincipalName: user.email, userType: user.userType })) },
      };
    }
    if (method === 'POST' && rawPath === '/invitations') {
      const request = jsonOf(body);
      const email = String(request.invitedUserEmailAddress);
      const hidden = standIn.guestPropagation === 'never' ? Number.MAX_SAFE_INTEGER : standIn.guestPropagation;
      const user =
        state.users.find((candidate) => candidate.email.toLowerCase() === email.toLowerCase()) ?? state.addUser(email, 'Guest', hidden);
      const invitation = {
        id: randomUUID(),
        invitedUserEmailAddress: email,
        sendInvitationMessage: request.sendInvitationMessage,
        inviteRedirectUrl: request.inviteRedirectUrl,
        invitedUserId: user.id,
      };
      state.invitations.push(invitation);
      return { status: 201, body: { ...invitation, invitedUser: { id: user.id }, status: 'PendingAcceptance' } };
    }
    if (method === 'POST' && rawPath === '/$batch') {
      const requests = (jsonOf(body).requests ?? []) as Array<{ id: string; method: string; url: string; body?: unknown }>;
      if (requests.length > 20) return badRequest('A batch holds at most 20 requests');
      const responses = requests.map((sub) => {
        const url = new URL(sub.url, 'http://batch');
        const subBody = sub.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(sub.body));
        calls.push({
          method: sub.method,
          path: `/v1.0${decodePath(url.pathname)}`,
          query: Object.fromEntries(url.searchParams),
          body: sub.body,
          authorized: true,
          inBatch: true,
        });
        const answer = graph(sub.method, url.pathname, url.searchParams, subBody, headers);
        return { id: sub.id, status: answer.status, body: answer.body ?? null };
      });
      return { status: 200, body: { responses } };
    }
    return { status: 400, body: { error: { code: 'BadRequest', message: `Unsupported request ${method} ${rawPath}` } } };
  }

  /** Upload sessions, download URLs and copy monitors: pre-authenticated, outside `/v1.0`. */
  function preAuthenticated(
    method: string,
    rawPath: string,
    query: URLSearchParams,
    body: Buffer,
    headers: Record<string, string | undefined>,
  ): Answer | Buffer | { partial: Buffer; range: string; size: number } {
    const state = standIn.state;
    let m: RegExpExecArray | null;
    m = /^\/upload\/([^/]+)$/.exec(rawPath);
    if (m) {
      const session = uploads.get(m[1]!);
      if (session === undefined) return notFound('Upload session not found');
      if (method === 'DELETE') {
        uploads.delete(m[1]!);
        return { status: 204 };
      }
      const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(headers['content-range'] ?? '');
      if (method !== 'PUT' || range === null) return badRequest('Content-Range is required');
      const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
      if (start !== session.next || end - start + 1 !== body.length)
        return { status: 416, body: { error: { code: 'invalidRange', message: 'Unexpected range' } } };
      if (end + 1 < total && body.length % (320 * 1024) !== 0) return badRequest('Fragments must be multiples of 320 KiB');
      session.received.push(body);
      session.next = end + 1;
      if (session.next < total)
        return {
          status: 202,
          body: { expirationDateTime: new Date(Date.now() + 3600_000).toISOString(), nextExpectedRanges: [`${session.next}-`] },
        };
      uploads.delete(m[1]!);
      const { item, created } = state.putItem(session.driveId, session.path, { bytes: Buffer.concat(session.received) });
      return { status: created ? 201 : 200, body: state.representation(item) };
    }
    m = method === 'GET' ? /^\/download\/([^/]+)$/.exec(rawPath) : null;
    if (m) {
      const item = state.items.get(m[1]!);
      if (item === undefined || query.get('token') !== item.downloadToken) return notFound();
      const range = /^bytes=(\d+)-(\d+)$/.exec(headers.range ?? '');
      if (range === null) return item.bytes;
      const [start, end] = [Number(range[1]), Math.min(Number(range[2]), item.bytes.length - 1)];
      return { partial: item.bytes.subarray(start, end + 1), range: `bytes ${start}-${end}/${item.bytes.length}`, size: item.bytes.length };
    }
    m = method === 'GET' ? /^\/monitor\/([^/]+)$/.exec(rawPath) : null;
    if (m) {
      const copy = copies.get(m[1]!);
      if (copy === undefined) return notFound('Monitor not found');
      copy.polls += 1;
      if (copy.polls <= standIn.copyPollsBeforeDone) return { status: 202, body: { status: 'inProgress', percentageComplete: 50 } };
      if (copy.resourceId === '') copy.resourceId = copy.run();
      return { status: 200, body: { status: 'completed', percentageComplete: 100, resourceId: copy.resourceId } };
    }
    return notFound();
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', baseUrl);
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    const headers = request.headers as Record<string, string | undefined>;
    const isJson = (headers['content-type'] ?? '').includes('json');
    calls.push({
      method,
      path: decodePath(url.pathname),
      query: Object.fromEntries(url.searchParams),
      ...(body.length === 0 ? {} : { body: isJson ? JSON.parse(body.toString('utf8')) : `<${body.length} bytes>` }),
      authorized: headers.authorization !== undefined,
    });
    const send = (answer: Answer) => {
      const payload = answer.body === undefined ? undefined : JSON.stringify(answer.body);
      response.writeHead(answer.status, { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...answer.headers });
      response.end(payload);
    };
    const failure = failures.find((candidate) => candidate.remaining > 0 && candidate.match.test(`${method} ${decodePath(url.pathname)}`));
    if (failure !== undefined) {
      failure.remaining -= 1;
      send({
        status: failure.status,
        headers: failure.headers,
        body: { error: { code: failure.status === 429 ? 'activityLimitReached' : 'serviceNotAvailable', message: 'Injected failure' } },
      });
      return;
    }
    if (method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(url.pathname)) {
      send(issueToken(new URLSearchParams(body.toString('utf8'))));
      return;
    }
    if (url.pathname.startsWith('/v1.0/')) {
      const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (token === undefined || !tokens.has(token)) {
        send({ status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty or invalid.' } } });
        return;
      }
      send(graph(method, url.pathname.slice('/v1.0'.length), url.searchParams, body, headers));
      return;
    }
    const answer = preAuthenticated(method, url.pathname, url.searchParams, body, headers);
    if (Buffer.isBuffer(answer)) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': answer.length, 'accept-ranges': 'bytes' });
      response.end(answer);
    } else if ('partial' in answer) {
      response.writeHead(206, {
        'content-type': 'application/octet-stream',
        'content-length': answer.partial.length,
        'content-range': answer.range,
      });
      response.end(answer.partial);
    } else {
      send(answer);
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'generalException', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  Object.assign(standIn, {
    url: baseUrl,
    state: new StandInState(baseUrl),
    calls,
    tokensIssued: 0,
    guestPropagation: 0,
    copyPollsBeforeDone: 1,
    env: (extra: Record<string, string> = {}) => ({
      GRAPH_API_URL: `${baseUrl}/v1.0`,
      GRAPH_TOKEN_URL: `${baseUrl}/${STAND_IN_CLIENT.tenantId}/oauth2/v2.0/token`,
      GRAPH_CLIENT_ID: STAND_IN_CLIENT.clientId,
      GRAPH_CLIENT_SECRET: STAND_IN_CLIENT.clientSecret,
      GRAPH_SITE_HOSTNAME: STAND_IN_HOSTNAME,
      GRAPH_GUEST_WAIT_MS: '400',
      GRAPH_GUEST_POLL_MS: '20',
      ...extra,
    }),
    provisionSite: (siteSlug: string, options: { drive?: boolean } = {}) =>
      standIn.state.addSite(STAND_IN_HOSTNAME, `/sites/tessera-${siteSlug}`, options.drive ?? true),
    failNext: (match: RegExp, status = 503, times = 1, headers: Record<string, string> = {}) => {
      failures.push({ match, status, remaining: times, headers });
    },
    revokeTokens: () => tokens.clear(),
    openUploadSessions: () => uploads.size,
    file: (site: StandInSite, key: string) => (site.driveId === undefined ? undefined : standIn.state.itemAt(site.driveId, `/${key}`)),
    callsMatching: (method: string, path: RegExp) => calls.filter((call) => call.method === method && path.test(call.path)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  } satisfies Partial<GraphStandIn>);
  return standIn;
}
