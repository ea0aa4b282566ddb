// Health checks on the platform host and every site host: liveness and readiness, to anyone,
// never counted against a rate limit (a monitor polls them).
import * as z from 'zod';
import { defineRoute } from '#shared/http/route.ts';
import { liveness, readiness } from './health-checks.ts';

export const livenessRoute = defineRoute({
  method: 'GET',
  path: '/api/health/',
  summary: 'Liveness: the function answers (no database is reached)',
  access: 'public',
  host: 'any',
  unlimited: true,
  envelope: 'bare',
  response: () => z.object({ status: z.literal('ok') }),
  handler: async () => liveness(),
});

export const readinessRoute = defineRoute({
  method: 'GET',
  path: '/api/health/ready/',
  summary: 'Readiness: the database and the object store answer (503 when not)',
  access: 'public',
  host: 'any',
  unlimited: true,
  envelope: 'bare',
  response: () => z.object({ status: z.literal('ready'), checks: z.object({ database: z.literal('ok'), object_store: z.literal('ok') }) }),
  handler: async (ctx) => readiness(ctx.runtime, ctx.log),
});
