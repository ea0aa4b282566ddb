// How a handler's result becomes the answer its route declares. The route table is the one source
// of an answer's shape (DESIGN §3): its `envelope`, `message` and `status` are applied here, so a
// handler returns data, a page of data, or data with the status the spec varies by outcome, and
// never builds an envelope itself (test/unit/http/route-envelopes.test.ts holds every route to it).
import { Readable } from 'node:stream';
import type { ListTotal } from '#shared/db/counted-page.ts';
import { envelopeA, envelopeB, pageA, pageB, pageC } from './envelopes.ts';
import type { PageRequest } from './pagination.ts';
import { HttpReply, JsonText } from './reply.ts';
import type { RequestContext } from './request-context.ts';
import type { AnyRoute } from './route.ts';

/** One page of a list: envelopes A and B render it with their page members, C as `{count, next, previous, results}`. */
export class PageResult<T> {
  constructor(
    readonly items: T[],
    readonly total: ListTotal,
    readonly page: PageRequest,
  ) {}
}

/** A page with its total as `countedPage` read it under the request's `_count` mode. */
export function paged<T>(items: T[], total: ListTotal, page: PageRequest): PageResult<T> {
  return new PageResult(items, total, page);
}

export interface OutcomeDetails {
  /** Replaces the route's status (an upload's 200 or 201, a batch's 207). */
  status?: number;
  /** Replaces the route's message (Envelopes A and B). */
  message?: string;
  /** Envelope B's `total` beside a list that is not a page (the assignments after a change). */
  total?: number;
}

/** Data whose status or message depends on what happened; the route's envelope still wraps it. */
export class Outcome<T> {
  constructor(
    readonly data: T,
    readonly details: OutcomeDetails,
  ) {}
}

export function outcome<T>(data: T, details: OutcomeDetails): Outcome<T> {
  return new Outcome(data, details);
}

/** Bodies of an HttpReply that no envelope wraps: bytes, a stream, JSON serialized by the database, or none (a redirect, a 304). */
function isRawBody(body: unknown): boolean {
  return body === undefined || body instanceof JsonText || body instanceof Readable || Buffer.isBuffer(body);
}

/** The routes whose answers are wrapped; `bare` and `none` answers are the handler's body as it is. */
export function isEnveloped(route: Pick<AnyRoute, 'envelope'>): boolean {
  return route.envelope === 'A' || route.envelope === 'B' || route.envelope === 'C';
}

function routeError(route: AnyRoute, problem: string): Error {
  return new Error(`${route.method} ${route.path} (envelope ${route.envelope}): ${problem}`);
}

function envelopeBody(route: AnyRoute, ctx: RequestContext, result: unknown, status: number, details: OutcomeDetails = {}): unknown {
  const message = details.message ?? route.message ?? '';
  switch (route.envelope) {
    case 'A':
      return result instanceof PageResult ? pageA(result.items, result.total, result.page, message) : envelopeA(result, message);
    case 'B': {
      if (result instanceof PageResult) return pageB(result.items, result.total, result.page, message);
      const body = { ...envelopeB(result, message, status), success: status < 400 };
      return details.total === undefined ? body : { ...body, total: details.total };
    }
    case 'C':
      if (result instanceof PageResult) return pageC(ctx, result.items, result.total, result.page);
      throw routeError(route, 'Envelope C answers a page: return paged(items, total, page)');
    default:
      if (result instanceof PageResult) throw routeError(route, 'a page needs an envelope that has a page form');
      return result;
  }
}

/** The reply for a handler's result under its route's declared envelope, message and status. */
export function routeReply(route: AnyRoute, ctx: RequestContext, result: unknown): HttpReply {
  if (result instanceof HttpReply) {
    if (isRawBody(result.body) || !isEnveloped(route)) return result;
    return new HttpReply(result.status, envelopeBody(route, ctx, result.body, result.status), result.headers);
  }
  if (result instanceof Outcome) {
    const status = result.details.status ?? route.status ?? 200;
    return new HttpReply(status, envelopeBody(route, ctx, result.data, status, result.details));
  }
  const status = route.status ?? 200;
  if (!isEnveloped(route)) return new HttpReply(status, envelopeBody(route, ctx, result, status));
  // `undefined` here is data (a delete's `{success, message}`); an HttpReply says when there is no body.
  if (result !== undefined && isRawBody(result)) throw routeError(route, 'bytes and serialized JSON are sent by an HttpReply');
  return new HttpReply(status, envelopeBody(route, ctx, result, status));
}
