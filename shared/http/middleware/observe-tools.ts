// The Powertools Tracer and Metrics behind ./observe.ts, loaded on a deployed function's first
// request. Powertools' own middy middlewares do the work (segments per invocation, EMF flushed
// after each one); this adds the group's request and 5xx counts.
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { ApiRequest } from './pipeline-state.ts';
import type { ObservedRequest } from './observe.ts';

export function observedRequest(group: string): ObservedRequest {
  // Service name and namespace come from POWERTOOLS_SERVICE_NAME and POWERTOOLS_METRICS_NAMESPACE.
  const tracer = new Tracer();
  const metrics = new Metrics({ defaultDimensions: { group } });
  // Responses may carry users' data: never copy them into traces.
  const tracing = captureLambdaHandler(tracer, { captureResponse: false });
  const metricsFlush = logMetrics(metrics, { captureColdStartMetric: true });
  const count = (request: ApiRequest): void => {
    metrics.addMetric('Requests', MetricUnit.Count, 1);
    const status = request.response?.statusCode ?? 500;
    if (status >= 500) metrics.addMetric('ServerErrors', MetricUnit.Count, 1);
    tracer.putAnnotation('status', status);
  };
  return {
    async before(request) {
      await tracing.before?.(request);
      await metricsFlush.before?.(request);
    },
    async after(request) {
      count(request);
      await metricsFlush.after?.(request);
      await tracing.after?.(request);
    },
    async onError(request) {
      metrics.addMetric('Requests', MetricUnit.Count, 1);
      metrics.addMetric('ServerErrors', MetricUnit.Count, 1);
      await metricsFlush.onError?.(request);
      await tracing.onError?.(request);
    },
  };
}
