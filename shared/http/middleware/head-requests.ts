// HEAD (RFC 9110 §9.3.2): the router answers it with the path's GET route, and this drops the
// answer's body on the way out, success or error, keeping its status and headers and giving it the
// Content-Length the GET's body would have. A streamed body (a download) is closed unread earlier,
// in dispatch, so no object's bytes are sent or collected for it.
import type { ApiResult } from '../gateway-event.ts';
import { pipelineState, type ApiMiddleware, type ApiRequest } from './pipeline-state.ts';

export function isHeadRequest(method: string): boolean {
  return method === 'HEAD';
}

function withoutBody(response: ApiResult): ApiResult {
  const { body, isBase64Encoded, ...rest } = response;
  if (body === undefined || body === null) return response;
  const length = isBase64Encoded === true ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body);
  return { ...rest, headers: { ...rest.headers, 'Content-Length': String(length) } };
}

export function headRequestsMiddleware(): ApiMiddleware {
  const strip = (request: ApiRequest): void => {
    const ctx = pipelineState(request).ctx;
    if (ctx === undefined || !isHeadRequest(ctx.request.method) || request.response == null) return;
    request.response = withoutBody(request.response);
  };
  return { after: strip, onError: strip };
}
