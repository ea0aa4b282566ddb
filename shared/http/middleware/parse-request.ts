// Finds the route and turns the event's path, query and body into the route's typed input.
import { BadRequestError } from '#shared/errors.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { streamedBodyOf } from '../body-streams.ts';
import type { Router } from '../router.ts';
import { parseOrThrow } from '../validation.ts';
import { pipelineState, type ApiEvent, type ApiMiddleware } from './pipeline-state.ts';

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
  try {
    return exactIntegers ? parseExactJson(text) : (JSON.parse(text) as unknown);
  } catch (error) {
    throw new BadRequestError(`JSON parse error - ${(error as Error).message}`);
  }
}

export function parseRequestMiddleware(router: Router): ApiMiddleware {
  return {
    before: (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      const match = router.match(ctx.request.method, ctx.request.path);
      state.match = match;
      const { route } = match;
      const query = Object.fromEntries(new URLSearchParams(ctx.request.rawQuery));
      const headers = ctx.request.headers;
      state.input = {
        params: route.params ? parseOrThrow(route.params, match.params) : match.params,
        query: route.query ? parseOrThrow(route.query, query) : query,
        body: route.streamBody
          ? streamedBodyOf(request.event, rawBodyOf(request.event), headers)
          : route.body
            ? parseOrThrow(route.body, jsonBodyOf(bodyTextOf(request.event), headers['content-type'], route.exactIntegers === true))
            : undefined,
      };
    },
  };
}
