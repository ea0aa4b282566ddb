// CORS for the configured origins. Used before error rendering in the chain: middy runs onError in
// reverse order, so the rendered error response exists by the time these headers are added.
// A preflight's allowed headers are the requested ones the API reads, reflected by name: `*` is a
// wildcard only without credentials (Fetch standard), and `X-Metadata-<Name>` is a family, not a list.
import { randomUUID } from 'node:crypto';
import { addHeaders, pipelineState, type ApiMiddleware, type ApiRequest } from './pipeline-state.ts';

/** Request headers a browser may send, besides the CORS-safelisted ones. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Tenant', 'X-Requested-With', 'If-None-Match', 'If-Range', 'Range'];
/** Families of request headers (upload metadata), by lower-case prefix. */
const ALLOWED_HEADER_PREFIXES = ['x-metadata-', 'x-store-meta-'];
const ALLOWED_NAMES = new Set(ALLOWED_HEADERS.map((name) => name.toLowerCase()));
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Content-Disposition',
  'ETag',
  'Content-Range',
  'Accept-Ranges',
  'Content-Length',
  'Last-Modified',
].join(', ');
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** A header field name (RFC 9110 §5.1 token) the API accepts from a browser. */
function allowedHeader(name: string): boolean {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return false;
  const lower = name.toLowerCase();
  return ALLOWED_NAMES.has(lower) || ALLOWED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix) && lower.length > prefix.length);
}

/** The preflight's Access-Control-Allow-Headers: the fixed list and the requested names it accepts. */
function allowHeadersFor(requested: string | undefined): string {
  const reflected = (requested ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && allowedHeader(name) && !ALLOWED_NAMES.has(name.toLowerCase()));
  return [...ALLOWED_HEADERS, ...new Set(reflected.map((name) => name.toLowerCase()))].join(', ');
}

function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (origin === undefined) return {};
  const anyOrigin = allowed.includes('*');
  if (!anyOrigin && !allowed.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': anyOrigin ? '*' : origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    ...(anyOrigin ? {} : { 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' }),
  };
}

export function corsMiddleware(): ApiMiddleware {
  const decorate = (request: ApiRequest): void => {
    const ctx = pipelineState(request).ctx;
    if (ctx === undefined) return;
    addHeaders(request.response, corsHeaders(ctx.request.headers.origin, ctx.runtime.config.corsOrigins));
  };
  return {
    before: (request) => {
      const ctx = pipelineState(request).ctx;
      if (ctx === undefined || ctx.request.method !== 'OPTIONS') return undefined;
      const headers = ctx.request.headers;
      // A preflight ends the chain here, so this response carries everything itself. Its answer
      // depends on the requested headers too, so a cache keys it on them.
      return {
        statusCode: 204,
        headers: {
          ...corsHeaders(headers.origin, ctx.runtime.config.corsOrigins),
          'Access-Control-Allow-Methods': ALLOWED_METHODS,
          'Access-Control-Allow-Headers': allowHeadersFor(headers['access-control-request-headers']),
          'Access-Control-Max-Age': '600',
          Vary: 'Origin, Access-Control-Request-Headers',
          'X-Request-Id': ctx.requestId ?? randomUUID(),
        },
      };
    },
    after: decorate,
    onError: decorate,
  };
}
