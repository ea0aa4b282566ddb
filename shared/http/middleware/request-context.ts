// First link of the chain: gives the request its id and context, and writes one log line and the
// X-Request-Id header on the way out, whether the request succeeded or failed.
import { randomUUID } from 'node:crypto';
import { requestLog } from '#shared/logger.ts';
import { getRuntime } from '#shared/runtime/runtime.ts';
import { RequestContext, type RequestInfo } from '../request-context.ts';
import type { ApiEvent } from '../gateway-event.ts';
import { addHeaders, pipelineState, type ApiMiddleware, type ApiRequest } from './pipeline-state.ts';

function requestInfo(event: ApiEvent): RequestInfo {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const host = headers.host ?? event.requestContext.domainName ?? 'localhost';
  // API Gateway sets x-forwarded-proto itself; the dev server sets it to http.
  const protocol = headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  const authorization = headers.authorization;
  const bearer = authorization !== undefined ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    host,
    origin: `${protocol}://${host}`,
    rawQuery: event.rawQueryString ?? '',
    headers,
    sourceIp: event.requestContext.http.sourceIp,
    bearerToken: bearer,
  };
}

export function requestContextMiddleware(group: string): ApiMiddleware {
  const finish = (request: ApiRequest): void => {
    const state = pipelineState(request);
    const ctx = state.ctx;
    if (ctx === undefined) return;
    addHeaders(request.response, { 'X-Request-Id': ctx.requestId });
    if (ctx.runtime.config.requestLog) {
      ctx.log.info('request', {
        method: ctx.request.method,
        path: ctx.request.path,
        status: request.response?.statusCode,
        durationMs: Math.round((performance.now() - state.startedAt) * 10) / 10,
        user: ctx.principal?.username,
      });
    }
  };
  return {
    before: async (request) => {
      const state = pipelineState(request);
      const event = request.event;
      const requestId = event.requestContext.requestId || randomUUID();
      const runtime = await getRuntime();
      state.ctx = new RequestContext(requestId, runtime, requestInfo(event), requestLog({ requestId, group }));
    },
    after: finish,
    onError: finish,
  };
}
