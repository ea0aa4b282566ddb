// Request shapes of the schema-evolution endpoints. The schemas themselves are checked by the
// Table Schema compiler so that their problems come back in the spec's words.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { jsonValue } from '#shared/json/json-value.ts';
import { pageQuery } from '#shared/http/pagination.ts';

const jsonSchema = lazySchema(() => z.record(z.string(), jsonValue(), { message: 'The table schema must be a JSON object.' }));
const wholeNumber = lazySchema(() => z.string().regex(/^\d+$/, 'A whole number is required.').transform(Number));

export const previewBody = lazySchema(() => z.object({ new_schema: jsonSchema() }));
export const validateBody = lazySchema(() => z.object({ schema: jsonSchema() }));
export const rollbackBody = lazySchema(() =>
  z.object({ revision_id: z.string().regex(/^[0-9a-f]{12}$/, 'A revision_id is 12 hexadecimal characters.') }),
);

/** Operation history: `limit` default 10 (the spec), at most 100 (DECISIONS' console maximum); `offset` from 0; `_count`. */
export const historyQuery = lazySchema(() =>
  z.object({
    limit: wholeNumber()
      .pipe(z.number().int().min(1, 'Ensure this value is at least 1.'))
      .transform((n) => Math.min(n, 100))
      .optional()
      .default(10),
    // Nine digits, as the record lists' offset: the statement's OFFSET stays an exact integer.
    offset: wholeNumber().pipe(z.number().int().max(999_999_999, 'Ensure this value is at most 999999999.')).optional().default(0),
    // Every paged list takes `_count` (DECISIONS): exact (default), planned or none; others are 400.
    _count: pageQuery()._count,
  }),
);

export const operationParams = lazySchema(() =>
  z.object({
    app_slug: z.string().min(1).max(100),
    datasource_slug: z.string().min(1).max(100).optional(),
    name: z.string().min(1).max(200),
    revision_id: z.string().min(1).max(40),
  }),
);
