// POST /api/apps/{target_app_slug}/datatables/import-reference/: one entry (201) or many (207).
import * as z from 'zod';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { jsonObject } from '#shared/http/json-object.ts';
import { importReferences } from './reference-service.ts';

export const importReferenceRoute = defineRoute({
  host: 'tenant',
  access: 'user',
  errorStyle: 'generic',
  method: 'POST',
  path: '/api/apps/{app_slug}/datatables/import-reference/',
  summary: "Reference another app's materialized table from this app",
  params: z.object({ app_slug: z.string().min(1).max(100) }),
  body: z.union([z.array(z.unknown()).min(1).max(100), jsonObject()]),
  envelope: 'bare',
  handler: async (ctx, { params, body }) => {
    const outcome = await importReferences(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body);
    return outcome.single ? reply(201, outcome.reference) : reply(207, outcome.answer);
  },
});
