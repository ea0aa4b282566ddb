// Request shapes of the secret types and secrets endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { jsonObject } from '#shared/http/json-object.ts';
import { pageQuery } from '#shared/http/pagination.ts';

/** A secret key is an identifier: safe in paths, environment-variable-like names allowed. */
export const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
/** A serialized value larger than this is refused: secrets are credentials, not documents. */
export const MAX_VALUE_BYTES = 64 * 1024;

const secretKey = lazySchema(() =>
  z.string().regex(SECRET_KEY_PATTERN, 'Enter a valid key: a letter or _, then letters, digits, _, . or -; at most 128 characters.'),
);
const typeSlug = lazySchema(() =>
  z
    .string()
    .max(100, 'Ensure this field has no more than 100 characters.')
    .regex(SLUG_PATTERN, 'Enter a valid slug: lower-case letters and digits, words joined by - or _.'),
);
const appSlug = lazySchema(() => z.string().min(1).max(100));
const description = lazySchema(() => z.string().max(2000, 'Ensure this field has no more than 2000 characters.'));

// Not z.json(): it copies objects, and a `__proto__` member would vanish from the stored value. The
// body came from JSON.parse, so it is JSON already.
const jsonValue = lazySchema(() =>
  z
    .unknown()
    .refine((value) => value !== undefined, { message: 'This field is required.', abort: true })
    .refine(
      (value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= MAX_VALUE_BYTES,
      `The value may not be larger than ${MAX_VALUE_BYTES} bytes as JSON.`,
    ),
);

// ---- secret types ----

export const secretTypeParams = lazySchema(() => z.object({ slug: z.string().min(1).max(100) }));

const secretTypeFields = () => ({
  name: z.string().trim().min(1, 'This field may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'),
  description: description().optional(),
  /** A JSON Schema document; checked with ajv in the service. `{}` accepts any value. */
  schema: jsonObject('The schema must be a JSON object.').optional(),
});

export const createSecretTypeBody = lazySchema(() => z.object({ slug: typeSlug(), ...secretTypeFields() }));
export type CreateSecretTypeBody = z.infer<ReturnType<typeof createSecretTypeBody>>;

/** PUT replaces name, description and schema; the slug is the address and does not change. */
export const replaceSecretTypeBody = lazySchema(() => z.object(secretTypeFields()));
export type ReplaceSecretTypeBody = z.infer<ReturnType<typeof replaceSecretTypeBody>>;

export const listSecretTypesQuery = lazySchema(() => z.object({ search: z.string().trim().max(200).optional(), ...pageQuery() }));
export type ListSecretTypesQuery = z.infer<ReturnType<typeof listSecretTypesQuery>>;

// ---- secrets ----

export const secretParams = lazySchema(() => z.object({ key: secretKey() }));

/** `?app=<slug>` picks an app's secret; without it, the site-level one. */
export const secretScopeQuery = lazySchema(() => z.object({ app: appSlug().optional() }));

export const createSecretBody = lazySchema(() =>
  z.object({
    key: secretKey(),
    value: jsonValue(),
    secret_type: typeSlug().nullable().optional(),
    description: description().optional(),
    app: appSlug().nullable().optional(),
  }),
);
export type CreateSecretBody = z.infer<ReturnType<typeof createSecretBody>>;

/** PUT sets a new value; type and description stay as they are unless sent. */
export const replaceSecretBody = lazySchema(() =>
  z.object({
    value: jsonValue(),
    secret_type: typeSlug().nullable().optional(),
    description: description().optional(),
  }),
);
export type ReplaceSecretBody = z.infer<ReturnType<typeof replaceSecretBody>>;

export const listSecretsQuery = lazySchema(() =>
  z.object({
    app: appSlug().optional(),
    secret_type: typeSlug().optional(),
    search: z.string().trim().max(200).optional(),
    ...pageQuery(),
  }),
);
export type ListSecretsQuery = z.infer<ReturnType<typeof listSecretsQuery>>;

export const historyQuery = lazySchema(() => z.object({ app: appSlug().optional(), ...pageQuery() }));
export type HistoryQuery = z.infer<ReturnType<typeof historyQuery>>;
