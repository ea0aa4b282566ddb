// POST /api/apps/{target_app_slug}/datatables/import-reference/: one entry (201) or many (207).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { jsonObject } from '#shared/http/json-object.ts';
import { tableDetailSchema } from '../tables/table-representation.ts';
import { importReferences, MAX_REFERENCES_PER_REQUEST } from './reference-service.ts';

/** An array's 207: every entry tried, the references made and each refused entry's reason. */
const importOutcomeSchema = lazySchema(() =>
  z
    .strictObject({
      created: z.number().int(),
      failed: z.number().int(),
      references: z.array(tableDetailSchema()),
      errors: z.array(z.strictObject({ index: z.number().int(), reference: z.unknown(), error: z.string() })),
    })
    .meta({ id: 'ReferenceImportOutcome' }),
);

export const importReferenceRoute = defineRoute({
  host: 'tenant',
  access: 'user',
  errorStyle: 'generic',
  method: 'POST',
  path: '/api/apps/{app_slug}/datatables/import-reference/',
  summary: "Reference another app's materialized table from this app",
  params: () => z.object({ app_slug: z.string().min(1).max(100) }),
  body: () =>
    z.union([z.array(z.unknown()).min(1).max(MAX_REFERENCES_PER_REQUEST), jsonObject()], {
      // Without this zod answers "Invalid input" for every miss, a too long array included.
      error: (issue) => {
        if (issue.code !== 'invalid_union') return undefined;
        if (!Array.isArray(issue.input)) return 'Expected {source_app_slug, source_table_name, reference_name?} or an array of them.';
        return issue.input.length === 0
          ? 'Send at least one reference.'
          : `At most ${MAX_REFERENCES_PER_REQUEST} references per request (this one has ${issue.input.length}).`;
      },
    }),
  response: () => z.union([tableDetailSchema(), importOutcomeSchema()]),
  envelope: 'bare',
  handler: async (ctx, { params, body }) => {
    const outcome = await importReferences(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body);
    return outcome.single ? reply(201, outcome.reference) : reply(207, outcome.answer);
  },
});
