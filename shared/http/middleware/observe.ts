// Tracing and metrics of a deployed function: Powertools Tracer (a handler subsegment in the X-Ray
// trace Lambda opens, cold-start and service annotations) and Metrics (CloudWatch EMF: cold start,
// requests and 5xx answers of the group, in POWERTOOLS_METRICS_NAMESPACE). Both are imported on the
// first request, not with the handler, so they add nothing to a cold import and stay out of
// index.mjs (the X-Ray SDK is a chunk of its own). Outside Lambda (dev server, tests, invoke) there
// is no middleware at all (middy refuses one without hooks) and nothing is loaded.
import type { ApiMiddleware, ApiRequest } from './pipeline-state.ts';

/** What the lazily loaded tools do around a request (see ./observe-tools.ts). */
export interface ObservedRequest {
  before(request: ApiRequest): Promise<void> | void;
  after(request: ApiRequest): Promise<void> | void;
  onError(request: ApiRequest): Promise<void> | void;
}

/** Deployed by our CDK: inside Lambda, with the namespace TesseraFunction sets. */
export function observabilityEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined && (env.POWERTOOLS_METRICS_NAMESPACE ?? '') !== '';
}

/** The middleware for `.use()`: one deployed, none locally. */
export function observeMiddleware(group: string): ApiMiddleware[] {
  if (!observabilityEnabled()) return [];
  let tools: Promise<ObservedRequest> | undefined;
  const load = (): Promise<ObservedRequest> => {
    tools ??= import('./observe-tools.ts').then((module) => module.observedRequest(group));
    return tools;
  };
  return [
    {
      before: async (request) => (await load()).before(request),
      after: async (request) => (await load()).after(request),
      onError: async (request) => (await load()).onError(request),
    },
  ];
}
