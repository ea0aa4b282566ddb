// What the middlewares of one request hand to each other, keyed by the event object, which is the
// one thing middy passes to both the middlewares and the handler.
import type { Context } from 'aws-lambda';
import type { MiddlewareObj, Request } from '@middy/core';
import type { TokenClaims } from '#shared/auth/tokens.ts';
import type { RateLimitOutcome } from '#shared/rate-limit/counters.ts';
import type { ApiEvent, ApiResult } from '../gateway-event.ts';
import type { RequestContext } from '../request-context.ts';
import type { ErrorStyle } from '../route.ts';
import type { RouteMatch } from '../router.ts';

export type ApiRequest = Request<ApiEvent, ApiResult, Error, Context>;
export type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, Context>;

export interface PipelineState {
  startedAt: number;
  ctx?: RequestContext;
  match?: RouteMatch;
  /** Where matching failed (405, a path that does not decode): the error style of the path's routes. */
  unmatchedErrorStyle?: ErrorStyle;
  /** A tenant route's verified access token, read together with the site by the tenant middleware. */
  claims?: TokenClaims;
  input?: { params: unknown; query: unknown; body: unknown };
  /** This request's rate-limit count, once taken (see middleware/rate-limit.ts). */
  rateLimit?: RateLimitOutcome;
}

const states = new WeakMap<ApiEvent, PipelineState>();

export function stateOfEvent(event: ApiEvent): PipelineState {
  const existing = states.get(event);
  if (existing !== undefined) return existing;
  const created: PipelineState = { startedAt: performance.now() };
  states.set(event, created);
  return created;
}

export function pipelineState(request: ApiRequest): PipelineState {
  return stateOfEvent(request.event);
}

export function addHeaders(response: ApiResult | null | undefined, headers: Record<string, string>): void {
  if (response === undefined || response === null) return;
  response.headers = { ...response.headers, ...headers };
}

/** How this request's errors are rendered: its route's style, else that of the routes of its path. */
export function errorStyleOf(state: PipelineState): ErrorStyle {
  return state.match?.route.errorStyle ?? state.unmatchedErrorStyle ?? 'generic';
}
