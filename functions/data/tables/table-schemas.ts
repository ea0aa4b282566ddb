// Request shapes of the datatables endpoints. The Table Schema itself is checked by table-schema.ts
// so that its errors come back as `{json_schema: [...]}`.
import { SAFE_IDENTIFIER } from '#shared/db/sql-identifiers.ts';
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { jsonObject } from '#shared/http/json-object.ts';

const description = lazySchema(() => z.string().max(2000, 'Ensure this field has no more than 2000 characters.'));
// As sent: z.record would copy it, and a `__proto__` member would become the copy's prototype, so
// the schema compiled (reading through it) and the schema stored (own members only) would differ.
const jsonSchema = jsonObject('The table schema must be a JSON object.');

export const appTablesParams = lazySchema(() => z.object({ app_slug: z.string().min(1).max(100) }));
export const datasourceTablesParams = lazySchema(() =>
  z.object({ app_slug: z.string().min(1).max(100), datasource_slug: z.string().min(1).max(100) }),
);

/** Both URL forms: with `datasource_slug` or without it. */
export const tableParams = lazySchema(() =>
  z.object({
    app_slug: z.string().min(1).max(100),
    datasource_slug: z.string().min(1).max(100).optional(),
    name: z.string().min(1).max(200),
  }),
);
export type TableAddress = z.infer<ReturnType<typeof tableParams>>;

export const createTableBody = lazySchema(() =>
  z.object({
    name: z
      .string()
      .max(63, 'Ensure this field has no more than 63 characters.')
      .regex(SAFE_IDENTIFIER, 'Enter a valid table name: lower-case letters, digits and _, starting with a letter or _.'),
    description: description().optional(),
    json_schema: jsonSchema,
  }),
);
export type CreateTableBody = z.infer<ReturnType<typeof createTableBody>>;

/** `allow_data_loss` lets a schema change run steps that may lose data (DECISIONS: else 400 with the warnings). */
/** `schema_hash`: the hash the client's change was made on; a stale one is 409 (no change lost to a race). */
const baseHash = lazySchema(() =>
  z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'A schema_hash is 64 hexadecimal characters.')
    .optional(),
);
export const patchTableBody = lazySchema(() =>
  z.object({
    description: description().optional(),
    json_schema: jsonSchema.optional(),
    allow_data_loss: z.boolean().optional(),
    schema_hash: baseHash(),
  }),
);
export type PatchTableBody = z.infer<ReturnType<typeof patchTableBody>>;
export const replaceTableBody = lazySchema(() =>
  z.object({
    description: description().optional(),
    json_schema: jsonSchema,
    allow_data_loss: z.boolean().optional(),
    schema_hash: baseHash(),
  }),
);

// Rows as sent (z.json would copy them and lose a `__proto__` member before the check sees it, and
// would refuse integers past 2^53, which arrive as bigints).
export const validateDataBody = lazySchema(() => z.object({ data: z.array(z.unknown()).max(10_000, 'At most 10000 rows per request.') }));
