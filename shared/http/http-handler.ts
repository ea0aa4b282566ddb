// Builds a group's Lambda entry: the shared middy chain around the group's route table.
// Order of use: tracing and metrics (deployed only) → request context → HEAD → CORS → rate-limit headers → error rendering → route matching →
// authentication → counting for the rate limit → parsing → tenant resolution → dispatch.
// Authentication comes before parsing so that a caller without a token is told 401 before anything
// about their input; signed-in callers are counted in the statement that reads them.
// (middy runs onError in reverse order of use, so CORS comes before error rendering to decorate
// the rendered error; see ../shared/STACK.md.)
import { Readable } from 'node:stream';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { deliverReplyStream } from './body-streams.ts';
import { routeReply } from './answers.ts';
import { checkDeclaredResponse } from './response-check.ts';
import { type HttpReply, JsonText } from './reply.ts';
import { ServiceUnavailableError } from '#shared/errors.ts';
import { stringifyExactJson } from '#shared/json/exact-json.ts';
import type { AnyRoute } from './route.ts';
import { Router } from './router.ts';
import { authenticateMiddleware } from './middleware/authenticate.ts';
import { corsMiddleware } from './middleware/cors.ts';
import { headRequestsMiddleware, isHeadRequest } from './middleware/head-requests.ts';
import { matchRouteMiddleware } from './middleware/match-route.ts';
import { observeMiddleware } from './middleware/observe.ts';
import { countRequestMiddleware, rateLimitHeadersMiddleware } from './middleware/rate-limit.ts';
import { parseRequestMiddleware } from './middleware/parse-request.ts';
import type { ApiResult } from './gateway-event.ts';
import { stateOfEvent } from './middleware/pipeline-state.ts';
import { renderErrorsMiddleware } from './middleware/render-errors.ts';
import { requestContextMiddleware } from './middleware/request-context.ts';
import { resolveTenantMiddleware } from './middleware/resolve-tenant.ts';
import { noteWriteRequest } from '#shared/tenancy/context-reuse.ts';

/** Methods that never write; every other request forgets the reused caller contexts. */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** Turns a reply into the gateway's response shape. */
function toApiResult(reply: HttpReply): ApiResult {
  if (reply.status === 204 || reply.body === undefined) {
    return { statusCode: reply.status, headers: { 'Cache-Control': 'no-store', ...reply.headers } };
  }
  if (reply.body instanceof JsonText) {
    return { statusCode: reply.status, headers: { ...JSON_HEADERS, ...reply.headers }, body: reply.body.text };
  }
  if (Buffer.isBuffer(reply.body)) {
    return {
      statusCode: reply.status,
      headers: { 'Cache-Control': 'no-store', ...reply.headers },
      body: reply.body.toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { statusCode: reply.status, headers: { ...JSON_HEADERS, ...reply.headers }, body: stringifyExactJson(reply.body) };
}

/** A reply whose body is a stream: piped by a streaming caller, else collected for the gateway. */
async function toStreamedResult(event: APIGatewayProxyEventV2, reply: HttpReply, body: Readable): Promise<ApiResult> {
  const length = reply.headers['Content-Length'];
  const collected = await deliverReplyStream(event, body, length === undefined ? undefined : Number(length));
  const headers = { 'Cache-Control': 'no-store', ...reply.headers };
  if (collected === undefined) return { statusCode: reply.status, headers };
  return { statusCode: reply.status, headers, body: collected.toString('base64'), isBase64Encoded: true };
}

async function dispatch(event: APIGatewayProxyEventV2): Promise<ApiResult> {
  const state = stateOfEvent(event);
  const { route } = state.match!;
  const input = state.input!;
  const result = await route.handler(state.ctx!, {
    params: input.params as never,
    query: input.query as never,
    body: input.body as never,
  });
  checkDeclaredResponse(route, result);
  const reply = routeReply(route, state.ctx!, result);
  if (reply.body instanceof Readable) {
    if (!isHeadRequest(state.ctx!.request.method)) return toStreamedResult(event, reply, reply.body);
    // HEAD: the headers (Content-Length included) as the GET sends them; the bytes are never read.
    reply.body.destroy();
    return { statusCode: reply.status, headers: { 'Cache-Control': 'no-store', ...reply.headers } };
  }
  return toApiResult(reply);
}

export interface HttpHandler {
  handler: ApiHandler;
  router: Router;
}

/**
 * What is kept of the function's time for rendering and sending the answer once the route's
 * handler has run out of it (middy's default, 5 ms, leaves the answer to luck on a busy host).
 */
const ANSWER_TIME_MS = 500;
/** Seconds a client is asked to wait after a request that ran out of time on a busy platform. */
const OUT_OF_TIME_RETRY_AFTER_SECONDS = '5';

/**
 * A handler still running when the function's time is nearly up. On a healthy platform that is
 * overload: the request waited for a database connection behind many others (postgres.js queues
 * them without a limit) or for a busy CPU. Not a fault of the request nor of the code, so a 503 the
 * client may send again after Retry-After, never the 500 middy's own TimeoutError became. Statements
 * are bounded shorter (DATABASE_STATEMENT_TIMEOUT_MS, 504), so this is waiting, not one slow query.
 */
function outOfTime(): never {
  throw new ServiceUnavailableError(
    'The platform is too busy to finish this request in time; try again shortly. A write may still be applied.',
    { headers: { 'Retry-After': OUT_OF_TIME_RETRY_AFTER_SECONDS } },
  );
}

export function createHttpHandler(group: string, routes: readonly AnyRoute[]): HttpHandler {
  const router = new Router(routes);
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(dispatch, {
    timeoutEarlyInMillis: ANSWER_TIME_MS,
    timeoutEarlyResponse: outOfTime,
  })
    .use(observeMiddleware(group))
    .use(requestContextMiddleware(group))
    .use(headRequestsMiddleware())
    .use(corsMiddleware())
    .use(rateLimitHeadersMiddleware(router))
    .use(renderErrorsMiddleware())
    .use(matchRouteMiddleware(router))
    .use(authenticateMiddleware())
    .use(countRequestMiddleware(router))
    .use(parseRequestMiddleware(router))
    .use(resolveTenantMiddleware());
  const run = chain as unknown as ApiHandler;
  const handler: ApiHandler = async (event, context) => {
    if (READ_ONLY_METHODS.has(event.requestContext.http.method.toUpperCase())) return run(event, context);
    // Anything that may write can change who may do what: reused caller contexts are forgotten
    // when it starts and again when it ends (shared/tenancy/context-reuse.ts).
    noteWriteRequest();
    try {
      return await run(event, context);
    } finally {
      noteWriteRequest();
    }
  };
  return { handler, router };
}
