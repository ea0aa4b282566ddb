// CORS for the configured origins. Used before error rendering in the chain: middy runs onError in
// reverse order, so the rendered error response exists by the time these headers are added.
import { randomUUID } from 'node:crypto';
import { addHeaders, pipelineState, type ApiMiddleware, type ApiRequest } from './pipeline-state.ts';

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Tenant, X-Requested-With, X-Metadata-*, X-Store-Meta-*';
const EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Content-Disposition, ETag';

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
      // A preflight ends the chain here, so this response carries everything itself.
      return {
        statusCode: 204,
        headers: {
          ...corsHeaders(ctx.request.headers.origin, ctx.runtime.config.corsOrigins),
          'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': '600',
          'X-Request-Id': ctx.requestId ?? randomUUID(),
        },
      };
    },
    after: decorate,
    onError: decorate,
  };
}
