// The local HTTP front: turns each request into the API Gateway event the deployed Lambda would get
// and calls the same group handler, so local behaviour is the deployed behaviour. Where a route
// streams (file uploads and downloads), the body goes to the handler unbuffered and a stream reply
// is piped to the socket, so files of any size pass with bounded memory.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { endpointGroups } from '#functions/groups.ts';
import { canonicalPath } from '#shared/rate-limit/limits.ts';
import { openStreamingChannel, takeReplyStream } from '#shared/http/body-streams.ts';
import { errorBody } from '#shared/http/envelopes.ts';
import { PayloadTooLargeError, type AppError } from '#shared/errors.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { Router } from '#shared/http/router.ts';
import { systemLog, describeError } from '#shared/logger.ts';
import { gatewayEvent, lambdaContext } from './gateway-event.ts';

/** API Gateway and Lambda refuse synchronous payloads above about 6 MB; so does the dev server. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

interface LoadedGroup {
  name: string;
  router: Router;
  handler: ApiHandler;
}

export interface DevServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const NO_BODY = Buffer.alloc(0);

function readBody(request: IncomingMessage): Promise<Buffer> {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): most GETs.
  const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
  if (encoding === undefined && (length === undefined || length === '0')) return Promise.resolve(NO_BODY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new PayloadTooLargeError(`Request body is larger than ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendError(response: ServerResponse, error: AppError): void {
  response.writeHead(error.status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(errorBody(error, 'generic')));
}

/** Whether the route this request reaches takes its body as a stream (unknown routes do not). */
function streamsBody(group: LoadedGroup, method: string, path: string): boolean {
  try {
    return group.router.match(method, path).route.streamBody === true;
  } catch {
    return false; // the handler answers the 404 or 405 itself
  }
}

/**
 * The request body as a stream the handler may consume or abandon. A PassThrough stands between:
 * a handler that gives up on the body destroys only it, never the socket, so its answer still
 * reaches the client; a client that breaks off fails it, so the handler does not wait forever.
 */
function bodyStream(request: IncomingMessage): PassThrough {
  // Room for several socket reads, so the body keeps arriving while the handler writes it out.
  const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
  // The handler may not be reading yet when the client breaks off; the stream keeps the error for
  // whoever reads it, so it must not also surface as an unhandled 'error' that ends the server.
  stream.on('error', () => undefined);
  request.on('error', (error) => stream.destroy(error));
  request.on('close', () => {
    if (!request.complete) stream.destroy(new Error('The client broke off the request body'));
  });
  request.pipe(stream);
  return stream;
}

/**
 * The group whose routes answer the path. A path none answers still goes through a handler, which
 * answers 404 after counting it against the caller's rate limit (so `/API/Users` cannot be used to
 * probe without limit); the group that serves its canonical form does, so that it counts in the
 * same statement (console or general) as the path it imitates.
 */
function groupFor(groups: LoadedGroup[], path: string): LoadedGroup {
  const exact = groups.find((candidate) => candidate.router.handles(path));
  if (exact !== undefined) return exact;
  const canonical = canonicalPath(path);
  const cloudForm = canonical.startsWith('/api/') ? `/api/cloud/${canonical.slice('/api/'.length)}` : canonical;
  return groups.find((candidate) => candidate.router.handles(canonical) || candidate.router.handles(cloudForm)) ?? groups[0]!;
}

async function serve(groups: LoadedGroup[], request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = request.url ?? '/';
  const path = url.split('?', 1)[0]!;
  const method = (request.method ?? 'GET').toUpperCase();
  const group = groupFor(groups, path);
  const requestStream = streamsBody(group, method, path) ? bodyStream(request) : undefined;
  const event = gatewayEvent({
    method,
    url,
    headers: { ...request.headers, 'x-forwarded-proto': 'http' },
    body: requestStream === undefined ? await readBody(request) : undefined,
    sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, ''),
  });
  openStreamingChannel(event, requestStream);
  const result = await group.handler(event, lambdaContext(group.name));
  if (requestStream !== undefined && !request.readableEnded) {
    // The handler answered without reading the whole body (a refused upload): read the rest off
    // the wire and drop it, so the client gets the answer and the connection stays usable.
    request.unpipe(requestStream);
    request.resume();
  }
  const replyStream = takeReplyStream(event);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies !== undefined && result.cookies.length > 0) headers['Set-Cookie'] = result.cookies;
  response.writeHead(result.statusCode ?? 200, headers);
  if (replyStream !== undefined && result.body === undefined) {
    // A broken-off download ends here: the client is gone, the file stream is closed by pipeline.
    await pipeline(replyStream, response).catch(() => undefined);
    return;
  }
  replyStream?.destroy();
  if (result.body === undefined) response.end();
  // Text goes out as the string: node writes it with the head in one go, without a Buffer between.
  else response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** Serves every endpoint group on one port; pass port 0 for a free one. */
export async function startDevServer(port: number, host = '127.0.0.1'): Promise<DevServer> {
  const groups: LoadedGroup[] = await Promise.all(
    endpointGroups.map(async (group) => ({
      name: group.name,
      router: new Router(group.routes),
      handler: await group.loadHandler(),
    })),
  );
  const server = createServer((request, response) => {
    serve(groups, request, response).catch((error: unknown) => {
      if (error instanceof PayloadTooLargeError) {
        sendError(response, error);
        return;
      }
      systemLog.error('dev server failed to answer', describeError(error));
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ status: 'error', code: 'INTERNAL_ERROR', message: 'Internal server error' }));
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
