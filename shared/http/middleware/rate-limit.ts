// Rate limits (DECISIONS): every request is counted once, keyed on the signed-in caller (their
// UUID from the verified token) or else the gateway's source IP, never a forwarding header. Where
// the request reads its caller anyway, the count rides in that statement (authenticate and
// resolve-tenant ask `callerCounting`); otherwise `countRequestMiddleware` counts on its own before
// the input is parsed. A request that failed before being counted (a bad token, a 404) is counted
// on the way out. Every response then carries the X-RateLimit-* headers; a passed limit is 429.
// Routes marked `unlimited` (the health checks) are never counted and carry no such headers.
import { countersFor, loginUsernameOf, statementOfPath, type CountedCaller, type Counter } from '#shared/rate-limit/limits.ts';
import { planCount, type CountPlan, type CountRow } from '#shared/rate-limit/leases.ts';
import {
  countRequest,
  countingSql,
  countRowsOf,
  outcomeOf,
  rateLimitError,
  rateLimitHeaders,
  type CallerCounting,
} from '#shared/rate-limit/counters.ts';
import { sweepWhenDue } from '#shared/rate-limit/sweep.ts';
import { errorBody } from '../envelopes.ts';
import type { Router } from '../router.ts';
import { addHeaders, errorStyleOf, pipelineState, type ApiMiddleware, type ApiRequest, type PipelineState } from './pipeline-state.ts';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function bodyTextOf(request: ApiRequest): string | undefined {
  const { body, isBase64Encoded } = request.event;
  if (body === undefined || body === null || body === '') return undefined;
  return isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** The request's counters for a caller; undefined when limits are off. */
function countersOf(request: ApiRequest, router: Router | undefined, caller: CountedCaller): Counter[] | undefined {
  const state = pipelineState(request);
  const ctx = state.ctx!;
  const config = ctx.runtime.config.rateLimit;
  if (config === undefined) return undefined;
  const route = state.match?.route;
  const statement =
    route !== undefined
      ? route.path.startsWith('/api/cloud/')
        ? 'console'
        : 'general'
      : statementOfPath(ctx.request.path, (cloudForm) => router?.handles(cloudForm) === true);
  const loginUsername = route?.countsAsLogin === true ? loginUsernameOf(bodyTextOf(request)) : undefined;
  return countersFor(config, { method: ctx.request.method, statement, loginUsername, sourceIp: ctx.request.sourceIp }, caller);
}

function settle(state: PipelineState, counters: readonly Counter[], plan: CountPlan, returned: readonly CountRow[]): void {
  state.rateLimit = outcomeOf(counters, plan.settle(returned), nowSeconds());
}

/** How the request's counters are counted: from blocks this process reserved, the rest in the database. */
function planFor(request: ApiRequest, counters: readonly Counter[]): CountPlan {
  return planCount(pipelineState(request).ctx!.runtime.db, counters, Date.now());
}

function enforce(state: PipelineState): void {
  const error = state.rateLimit === undefined ? undefined : rateLimitError(state.rateLimit);
  if (error !== undefined) throw error;
}

/**
 * For the statement that reads a signed-in caller of a matched route: counts the request there;
 * `enforceRateLimit` throws the 429 once read. Undefined when limits are off or it was counted.
 */
export function callerCounting(request: ApiRequest): CallerCounting | undefined {
  const state = pipelineState(request);
  if (state.rateLimit !== undefined) return undefined;
  let counters: Counter[] | undefined;
  let plan: CountPlan | undefined;
  return state.ctx!.runtime.config.rateLimit === undefined
    ? undefined
    : {
        sqlFor: (subject) => {
          counters = countersOf(request, undefined, { user: subject })!;
          plan = planFor(request, counters);
          return plan.reservations.length === 0 ? undefined : countingSql(plan.reservations);
        },
        settle: (returned) => {
          if (counters !== undefined && plan !== undefined) settle(state, counters, plan, countRowsOf(returned));
        },
      };
}

/** Throws the 429 of a request whose count passed a limit. */
export function enforceRateLimit(request: ApiRequest): void {
  enforce(pipelineState(request));
}

/** The caller a request is counted as when no statement read them: the verified token's user, else the address. */
async function standaloneCaller(request: ApiRequest): Promise<CountedCaller> {
  const state = pipelineState(request);
  const ctx = state.ctx!;
  if (ctx.principal !== undefined) return { user: ctx.principal.uuid };
  if (state.claims !== undefined) return { user: state.claims.subject };
  const token = ctx.request.bearerToken;
  if (token !== undefined) {
    // The signature is checked (once per process for a token): only a genuine token's user is counted.
    const claims = await ctx.runtime.tokens.verify(token, 'access').catch(() => undefined);
    if (claims !== undefined) return { user: claims.subject };
  }
  return { ip: ctx.request.sourceIp };
}

async function countStandalone(request: ApiRequest, router: Router): Promise<void> {
  const state = pipelineState(request);
  const counters = countersOf(request, router, await standaloneCaller(request));
  if (counters === undefined) return;
  const plan = planFor(request, counters);
  settle(state, counters, plan, await countRequest(state.ctx!.runtime.db, plan.reservations));
}

/** Deletes ended counters when this process is due (shared/rate-limit/sweep.ts); a failure only logs. */
async function sweepCounters(request: ApiRequest): Promise<void> {
  const { runtime, log } = pipelineState(request).ctx!;
  const interval = runtime.config.rateLimit?.sweepIntervalSeconds;
  if (interval === undefined) return;
  try {
    const swept = await sweepWhenDue(runtime.db, interval, nowSeconds());
    if (swept > 0) log.debug('rate limit counters swept', { swept });
  } catch (error) {
    log.warn('rate limit counter sweep failed', { error: String(error) });
  }
}

/**
 * Counts, after authentication and before parsing, every request no later statement will count:
 * all but the signed-in ones on tenant routes, whose count rides in the caller-and-site read.
 * It also sweeps ended counters, on the one request per interval that finds the sweep due.
 */
export function countRequestMiddleware(router: Router): ApiMiddleware {
  return {
    before: async (request) => {
      const state = pipelineState(request);
      if (state.ctx!.runtime.config.rateLimit === undefined || state.match?.route.unlimited === true) return;
      await sweepCounters(request);
      if (state.rateLimit !== undefined) return;
      if (state.match?.route.host === 'tenant' && state.claims !== undefined) return;
      await countStandalone(request, router);
      enforce(state);
    },
  };
}

/**
 * Used before error rendering, so its onError runs after it: counts a request that failed before
 * being counted, turns the answer into a 429 when that count passed a limit, and sends the headers.
 */
export function rateLimitHeadersMiddleware(router: Router): ApiMiddleware {
  const decorate = (request: ApiRequest): void => {
    const outcome = pipelineState(request).rateLimit;
    if (outcome !== undefined) addHeaders(request.response, rateLimitHeaders(outcome));
  };
  return {
    after: decorate,
    onError: async (request) => {
      const state = pipelineState(request);
      if (state.ctx === undefined || state.ctx.runtime.config.rateLimit === undefined) return;
      // A failed health check is not counted either: an unlimited route never touches the counters.
      if (state.match?.route.unlimited === true) return;
      if (state.rateLimit === undefined) {
        try {
          await countStandalone(request, router);
        } catch (error) {
          state.ctx.log.error('rate limit count failed', { error: String(error) });
          return;
        }
        const limited = rateLimitError(state.rateLimit!);
        if (limited !== undefined && request.response?.statusCode !== 429) {
          request.response = {
            statusCode: 429,
            headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...limited.headers },
            body: JSON.stringify(errorBody(limited, errorStyleOf(state))),
          };
        }
      }
      decorate(request);
    },
  };
}
