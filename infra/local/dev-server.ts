// The local HTTP front: turns each request into the API Gateway event the deployed Lambda would get
// and calls the same group handler, so local behaviour is the deployed behaviour. Where a route
// streams (file uploads and downloads), the body goes to the handler unbuffered and a stream reply
// is piped to the socket, so files of any size pass with bounded memory.
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { endpointGroups } from '#functions/groups.ts';
import { canonicalPath } from '#shared/rate-limit/limits.ts';
import { openStreamingChannel, RequestBodyBrokenError, takeReplyStream } from '#shared/http/body-streams.ts';
import { MAX_REQUEST_BODY_BYTES } from '#shared/http/json-body.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { Router } from '#shared/http/router.ts';
import { systemLog, describeError } from '#shared/logger.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';
import { concurrencyLimit, type ConcurrencyLimit } from '#shared/concurrency-limit.ts';
import { gatewayEvent, lambdaContext } from './gateway-event.ts';
import { hostedHostOf, serveHostedBuild } from './hosted-builds.ts';

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

/**
 * Requests worked on at once; the rest wait for a place in arrival order. Deployed, every Lambda
 * invocation is served alone and API Gateway queues or throttles the rest; one process serving
 * everything has no such bound. Without one, under 1,000 connections every request started at once
 * and each statement waited behind the statements of all the others in the database pool's queue,
 * so a request of several statements in a row (an upload: bucket, object, bytes, record) waited that
 * long for each and ran out of its 29 s (load benchmark: about 1,000 uploads answered 503 in 60 s).
 * 64 keeps the pool and the cores busy, and a request's time limit counts from its admission.
 * Requests whose body streams in (uploads) have places of their own: a handler reading a body holds
 * its place as long as the client takes to send it, and a signed-in client trickling bytes into 64
 * uploads must not stall every other request for the 29 s their handlers wait.
 */
const REQUESTS_IN_FLIGHT = 64;

/**
 * How long a streamed request body may send nothing before it is refused as stalled (400): well
 * inside the 29 s a request has, so a client that stops sending is answered as the cause, not
 * after the time limit as an overloaded platform (503).
 */
export const BODY_IDLE_TIMEOUT_MS = 10_000;

interface Places {
  /** Requests whose body, if any, was read before the handler ran. */
  buffered: ConcurrencyLimit;
  /** Requests whose body streams to the handler. */
  streamed: ConcurrencyLimit;
}

/** Content-Length when the client sent a well-formed one. */
function announcedLength(request: IncomingMessage): number | undefined {
  const length = request.headers['content-length'];
  return length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
}

/**
 * The body of a route that does not stream, buffered up to one byte past the platform's limit: the
 * handler chain answers 413 for such a body (as deployed), so the dev server never decides it. The
 * rest of an oversized body is read off the wire and dropped, so the client gets that answer
 * instead of a reset connection. A body announced over the limit is not read at all.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): most GETs.
  const { 'transfer-encoding': encoding } = request.headers;
  const announced = announcedLength(request);
  if (encoding === undefined && (announced === undefined || announced === 0)) return Promise.resolve(NO_BODY);
  if (announced !== undefined && announced > MAX_REQUEST_BODY_BYTES) return Promise.resolve(NO_BODY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const room = MAX_REQUEST_BODY_BYTES + 1 - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size > MAX_REQUEST_BODY_BYTES) {
        request.off('data', onData);
        request.resume();
        resolve(Buffer.concat(chunks));
      }
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** streamsBody for a request before it is served (unknown paths do not stream). */
function streamsBodyOf(groups: LoadedGroup[], request: IncomingMessage): boolean {
  const path = (request.url ?? '/').split('?', 1)[0]!;
  const group = groups.find((candidate) => candidate.router.handles(path));
  return group !== undefined && streamsBody(group, (request.method ?? 'GET').toUpperCase(), path);
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
  // The client's failures are told apart from the platform's here, where they are known: the
  // socket's ECONNRESET is the client's, and must not read as a lost database connection.
  const brokeOff = (error: RequestBodyBrokenError) => {
    clearTimeout(idle);
    if (!stream.destroyed) stream.destroy(error);
  };
  // A client that stops sending while the handler waits for its bytes: answered before the
  // request's time runs out, as the client's fault. Waiting on the handler (backpressure) is not stalling.
  const checkIdle = () => {
    if (request.readableFlowing === false) idle = setTimeout(checkIdle, BODY_IDLE_TIMEOUT_MS);
    else brokeOff(new RequestBodyBrokenError('stalled'));
  };
  let idle = setTimeout(checkIdle, BODY_IDLE_TIMEOUT_MS);
  request.on('data', () => idle.refresh());
  request.on('end', () => clearTimeout(idle));
  request.on('error', (error: NodeJS.ErrnoException) => brokeOff(new RequestBodyBrokenError('aborted', error.code)));
  request.on('close', () => {
    clearTimeout(idle);
    if (!request.complete) brokeOff(new RequestBodyBrokenError('aborted'));
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

async function serve(groups: LoadedGroup[], places: Places, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = request.url ?? '/';
  const path = url.split('?', 1)[0]!;
  // A worker's host serves its build, as CloudFront does deployed; its /api/ paths stay the API's.
  if (!path.startsWith('/api/')) {
    const runtime = await getRuntime();
    const host = hostedHostOf(request, runtime.config.hosting.hostedDomain);
    if (host !== undefined && (await serveHostedBuild(runtime, host, request, response))) return;
  }
  const method = (request.method ?? 'GET').toUpperCase();
  const group = groupFor(groups, path);
  const requestStream = streamsBody(group, method, path) ? bodyStream(request) : undefined;
  const event = gatewayEvent({
    method,
    url,
    headers: request.headers,
    forwardedProto: 'http',
    body: requestStream === undefined ? await readBody(request) : undefined,
    sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, ''),
  });
  openStreamingChannel(event, requestStream);
  // The place is held while the handler works, not while a reply streams out to a slow client.
  const place = requestStream === undefined ? places.buffered : places.streamed;
  const result = await place.run(() => group.handler(event, lambdaContext(group.name)));
  if (requestStream === undefined && !request.complete) {
    // A body over the limit, refused by the chain (413) before it was read to the end: the
    // connection closes after the answer, the rest of the body is dropped as it comes.
    response.shouldKeepAlive = false;
    request.resume();
  }
  if (requestStream !== undefined && !request.readableEnded) {
    // The handler answered without reading the whole body (a refused upload): read the rest off
    // the wire and drop it, so the client gets the answer and the connection stays usable.
    request.unpipe(requestStream);
    request.resume();
    // A handler answered out of time (503) may still be waiting on these bytes: it stops now, with
    // its staged file removed, instead of waiting for ever on a stream nothing feeds.
    requestStream.destroy();
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

/**
 * A request node cannot parse reaches no handler: most often a request line and headers over its
 * 16 KB (a filter of thousands of values in the URL), which node would refuse with a bare 431. The
 * client gets the platform's error envelope and a request id instead, and the connection closes:
 * the rest of what it sent cannot be framed. (Deployed, API Gateway refuses such requests itself.)
 */
function answerUnparsable(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    status: 'error',
    code: tooLarge ? 'REQUEST_HEADER_FIELDS_TOO_LARGE' : 'BAD_REQUEST',
    message: tooLarge
      ? 'The request line and headers are over 16 KB: send long filters in fewer values, or split the request.'
      : 'The request could not be parsed as HTTP/1.1.',
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
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
  const places: Places = { buffered: concurrencyLimit(REQUESTS_IN_FLIGHT), streamed: concurrencyLimit(REQUESTS_IN_FLIGHT) };
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    serve(groups, places, request, response).catch((error: unknown) => {
      systemLog.error('dev server failed to answer', describeError(error));
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ status: 'error', code: 'INTERNAL_ERROR', message: 'Internal server error' }));
    });
  };
  const server = createServer(answer);
  // `Expect: 100-continue`: a body announced over the limit is never invited; the chain answers 413.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const announced = announcedLength(request);
    if (announced === undefined || announced <= MAX_REQUEST_BODY_BYTES || streamsBodyOf(groups, request)) response.writeContinue();
    answer(request, response);
  });
  server.on('clientError', answerUnparsable);
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
