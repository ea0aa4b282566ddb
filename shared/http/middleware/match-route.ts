// Finds the route before anything reads the request's input, so that the access rule (a missing
// token is 401) and the rate limit apply before the body is validated. A path no route answers
// (404) or a method it does not take (405) is kept, not thrown: such a request is still counted
// against its caller's limit, and parse-request answers the error after that.
import type { Router } from '../router.ts';
import { pipelineState, type ApiMiddleware } from './pipeline-state.ts';

export function matchRouteMiddleware(router: Router): ApiMiddleware {
  return {
    before: (request) => {
      const state = pipelineState(request);
      const ctx = state.ctx!;
      try {
        state.match = router.match(ctx.request.method, ctx.request.path);
      } catch {
        // parse-request matches again (answered from the router's last match) and throws the error.
        state.match = undefined;
        state.unmatchedErrorStyle = router.errorStyleOf(ctx.request.method, ctx.request.path);
      }
    },
  };
}
