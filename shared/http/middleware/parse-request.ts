// Finds the route and turns the event's path, query and body into the route's typed input. The one
// place request bodies are parsed: JSON goes through the depth limit (../json-body.ts), and a body
// over the size limit is 413 on every route that does not stream its body.
import { BadRequestError, ValidationError, type FieldErrors } from '#shared/errors.ts';
import { streamedBodyOf } from '../body-streams.ts';
import { assertRequestBodySize, MAX_REQUEST_BODY_BYTES, parseJsonText } from '../json-body.ts';
import type { Router } from '../router.ts';
import { parseOrThrow } from '../validation.ts';
import type { ApiEvent } from '../gateway-event.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';

function rawBodyOf(event: ApiEvent): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** The body as text: the event's own string unless the gateway base64-encoded it (a megabyte is not copied twice). */
function bodyTextOf(event: ApiEvent): string | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function jsonBodyOf(text: string | undefined, contentType: string | undefined, exactIntegers: boolean): unknown {
  // An absent body is an empty object, so required members are reported one by one.
  if (text === undefined) return {};
  if (contentType !== undefined && !/\bjson\b/i.test(contentType)) {
    throw new BadRequestError(`Unsupported media type "${contentType}": send application/json`);
  }
  return parseJsonText(text, 'JSON body', exactIntegers);
}

/**
 * The body's size, or the size announced by Content-Length when larger: a server in front (the dev
 * server) may refuse to read a body announced over the limit, and hands the event on without it.
 */
function bodySizeOf(event: ApiEvent, headers: Readonly<Record<string, string | undefined>>): number {
  const announced = headers['content-length'];
  const declared = announced !== undefined && /^\d+$/.test(announced) ? Number(announced) : 0;
  if (event.body === undefined || event.body === null) return declared;
  const actual = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
  return Math.max(declared, actual);
}

/**
 * The query string as one value per name. Where the route declares its parameters, a name given
 * twice is a 400 naming it, as the record lists answer: which of `_count=exact&_count=none` holds
 * is not for the server to guess. Routes without a declaration read the raw query themselves.
 */
function queryOf(rawQuery: string, declared: boolean): Record<string, string> {
  const entries = [...new URLSearchParams(rawQuery)];
  const query = Object.fromEntries(entries);
  if (!declared || Object.keys(query).length === entries.length) return query;
  const seen = new Set<string>();
  const repeated = Object.create(null) as FieldErrors;
  for (const [name] of entries) {
    if (seen.has(name)) repeated[name] = ['This parameter is given more than once.'];
    seen.add(name);
  }
  throw ValidationError.forFields(repeated);
}

export function parseRequestMiddleware(router: Router): ApiMiddleware {
  return {
    before: (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      const match = router.match(ctx.request.method, ctx.request.path);
      state.match = match;
      const { route } = match;
      const query = queryOf(ctx.request.rawQuery, route.query !== undefined);
      const headers = ctx.request.headers;
      if (route.streamBody !== true) {
        const size = bodySizeOf(request.event, headers);
        // Logged at WARN whatever REQUEST_LOG says: the one trace of a body nobody will ever read.
        if (size > MAX_REQUEST_BODY_BYTES)
          ctx.log.warn('request body over the limit', { method: ctx.request.method, path: ctx.request.path, bytes: size });
        assertRequestBodySize(size);
      }
      state.input = {
        params: route.params ? parseOrThrow(route.params(), match.params) : match.params,
        query: route.query ? parseOrThrow(route.query(), query) : query,
        body: route.streamBody
          ? streamedBodyOf(request.event, rawBodyOf(request.event), headers)
          : route.body
            ? parseOrThrow(route.body(), jsonBodyOf(bodyTextOf(request.event), headers['content-type'], route.exactIntegers === true))
            : undefined,
      };
    },
  };
}
