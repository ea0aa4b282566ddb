// Renders any error into the envelope of the route's area with the error's own status. Errors the
// platform does not know become a plain 500 INTERNAL_ERROR; the log keeps the cause, never the client.
import { mapDatabaseError } from '#shared/db/database-errors.ts';
import { toAppError } from '#shared/errors.ts';
import { describeError, systemLog } from '#shared/logger.ts';
import { RequestBodyBrokenError } from '../body-streams.ts';
import { errorBody } from '../envelopes.ts';
import { errorStyleOf, pipelineState, type ApiMiddleware } from './pipeline-state.ts';

export function renderErrorsMiddleware(): ApiMiddleware {
  return {
    onError: (request) => {
      const state = pipelineState(request);
      // A database failure that reached here unmapped (a timeout in a read, say) still gets its meaning.
      const error = toAppError(mapDatabaseError(request.error));
      const log = state.ctx?.log ?? systemLog;
      if (error.status >= 500) log.error('request failed', describeError(request.error));
      else if (error instanceof RequestBodyBrokenError) {
        log.warn('request body broken off by the client', { reason: error.reason, clientCode: error.clientCode });
      }
      const style = errorStyleOf(state);
      request.response = {
        statusCode: error.status,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...error.headers },
        body: JSON.stringify(errorBody(error, style)),
      };
    },
  };
}
