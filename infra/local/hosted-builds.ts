// Serves frontend builds on the dev server, as CloudFront does deployed: a request whose host is a
// worker's full domain under the hosted domain gets a file of that worker's active build. A path
// that names no file and has no extension gets index.html (single-page apps route in the browser).
// Content-Type and Cache-Control follow the rule the deployed objects carry too
// (shared/hosting/build-file-headers.ts); every answer carries an ETag and a matching If-None-Match
// gets 304.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Runtime } from '#shared/runtime/runtime.ts';
import { buildFileHeaders } from '#shared/hosting/build-file-headers.ts';
import { buildFileKey, requestedSegments } from '#shared/hosting/build-keys.ts';
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { activeBuildPrefix } from '#shared/hosting/hosted-domains.ts';
import type { ObjectDownload } from '#shared/storage/object-store.ts';
import { ObjectMissingError } from '#shared/storage/storage-errors.ts';

/** The host of a request without its port, lower-cased; undefined when it is not under the hosted domain. */
export function hostedHostOf(request: IncomingMessage, hostedDomain: string): string | undefined {
  const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  return host.endsWith(`.${hostedDomain}`) ? host : undefined;
}

function plain(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  response.end(text);
}

async function open(runtime: Runtime, key: string): Promise<ObjectDownload | undefined> {
  const store = await buildStoreFor(runtime.config.hosting);
  try {
    return await store.get(key);
  } catch (error) {
    if (error instanceof ObjectMissingError) return undefined;
    throw error;
  }
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Answers the request from the host's active build and resolves true, or resolves false (without
 * touching the response) when the host serves no build, so the API answers it instead.
 */
export async function serveHostedBuild(
  runtime: Runtime,
  host: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  const prefix = await activeBuildPrefix(runtime.db, host);
  if (prefix === undefined) return false;
  const method = (request.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    plain(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    return true;
  }
  const segments = requestedSegments((request.url ?? '/').split('?', 1)[0]!);
  if (segments === undefined) {
    plain(response, 404, 'Not Found');
    return true;
  }
  let name = segments[segments.length - 1]!;
  let file = await open(runtime, buildFileKey(prefix, segments));
  if (file === undefined && !name.includes('.')) {
    name = 'index.html';
    file = await open(runtime, buildFileKey(prefix, [name]));
  }
  if (file === undefined) {
    plain(response, 404, 'Not Found');
    return true;
  }
  const { contentType, cacheControl } = buildFileHeaders(name);
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    'Cache-Control': cacheControl,
    ETag: file.etag,
    'Last-Modified': file.lastModified.toUTCString(),
    'X-Content-Type-Options': 'nosniff',
  };
  if (etagMatches(request.headers['if-none-match'], file.etag)) {
    file.body.destroy();
    response.writeHead(304, headers);
    response.end();
    return true;
  }
  response.writeHead(200, { ...headers, 'Content-Length': String(file.size) });
  if (method === 'HEAD') {
    file.body.destroy();
    response.end();
    return true;
  }
  // A client that breaks off ends the pipeline; the file stream is closed by it.
  await pipeline(file.body, response).catch(() => undefined);
  return true;
}
