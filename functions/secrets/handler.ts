// Lambda entry of the secrets group: a site's secret types and secrets. A group of its own because
// what it alone needs (ajv for the secret types' JSON Schemas, the pattern engine for their
// patterns, some 300 KB) would otherwise ship with every console function.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { secretsRoutes } from './routes.ts';

export const { handler } = createHttpHandler('secrets', secretsRoutes);
