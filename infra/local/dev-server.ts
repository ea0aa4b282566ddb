// The local HTTP front: turns each request into the API Gateway event the deployed Lambda would get
// and calls the same group handler, so local behaviour is the deployed behaviour.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointGroups } from '#functions/groups.ts';
import { errorBody } from '#shared/http/envelopes.ts';
import { NotFoundError, PayloadTooLargeError, type AppError } from '#shared/errors.ts';
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

function readBody(request: IncomingMessage): Promise<Buffer> {
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

async function serve(groups: LoadedGroup[], request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = request.url ?? '/';
  const path = url.split('?', 1)[0]!;
  const group = groups.find((candidate) => candidate.router.handles(path));
  if (group === undefined) {
    sendError(response, new NotFoundError());
    return;
  }
  const body = await readBody(request);
  const event = gatewayEvent({
    method: request.method ?? 'GET',
    url,
    headers: { ...request.headers, 'x-forwarded-proto': 'http' },
    body,
    sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, ''),
  });
  const result = await group.handler(event, lambdaContext(group.name));
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies !== undefined && result.cookies.length > 0) headers['Set-Cookie'] = result.cookies;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
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
