// Route table of the docs group: the API's description, its explorer pages, and the health checks.
import type { AnyRoute } from '#shared/http/route.ts';
import { redocFileRoute, redocPageRoute, schemaRoute, swaggerFileRoute, swaggerPageRoute } from './docs-routes.ts';
import { livenessRoute, readinessRoute } from './health-routes.ts';

export const docsRoutes: readonly AnyRoute[] = [
  schemaRoute,
  swaggerPageRoute,
  swaggerFileRoute,
  redocPageRoute,
  redocFileRoute,
  livenessRoute,
  readinessRoute,
];
