// Request shapes of the bucket endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { orderingQuery } from '#shared/http/query-params.ts';
import { isMimePattern } from '../mime-rules.ts';

export const VISIBILITIES = ['private', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const APP_CATEGORIES = ['assets', 'attachments'] as const;
export type AppCategory = (typeof APP_CATEGORIES)[number];
/** Where a bucket's bytes live: the object store, or the site's document library (Microsoft Graph). */
export const STORAGE_PROVIDERS = ['object_store', 'document_library'] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];

export const DEFAULT_FILE_SIZE_LIMIT = 52_428_800;
const MAX_MIME_PATTERNS = 100;

export const appParams = lazySchema(() => z.object({ app_slug: z.string().min(1).max(100) }));
export const bucketParams = lazySchema(() => appParams().extend({ bucket_slug: z.string().min(1).max(100) }));
export type BucketParams = z.infer<ReturnType<typeof bucketParams>>;

/** One of fixed values; a missing one still reads "This field is required.". */
export function choice<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => (issue.input === undefined ? 'This field is required.' : `Choose one of: ${values.join(', ')}.`),
  });
}

const visibility = lazySchema(() => choice(VISIBILITIES));
const appCategory = lazySchema(() => choice(APP_CATEGORIES));
const name = lazySchema(() =>
  z.string().trim().min(1, 'This field may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'),
);
const fileSizeLimit = lazySchema(() =>
  z
    .number({ message: 'A whole number of bytes is required.' })
    .int('A whole number of bytes is required.')
    .min(1, 'Ensure this value is at least 1.')
    .max(Number.MAX_SAFE_INTEGER, 'The limit is too large.'),
);
const allowedMimeTypes = lazySchema(() =>
  z
    .array(
      z.string().superRefine((value, ctx) => {
        if (isMimePattern(value)) return;
        ctx.addIssue({
          code: 'custom',
          message: `"${value}" is not a MIME pattern: use type/subtype, type/* or */* (letters, digits, "-", "+" and "." after an alphanumeric start).`,
        });
      }),
    )
    .max(MAX_MIME_PATTERNS, `Ensure this list has no more than ${MAX_MIME_PATTERNS} entries.`)
    // Stored lowercase and once each: matching ignores case, and duplicates mean nothing.
    .transform((patterns) => [...new Set(patterns.map((pattern) => pattern.toLowerCase()))]),
);

export const createBucketBody = lazySchema(() =>
  z.object({
    name: name(),
    app_category: appCategory(),
    visibility: visibility().default('private'),
    file_size_limit: fileSizeLimit().default(DEFAULT_FILE_SIZE_LIMIT),
    allowed_mime_types: allowedMimeTypes().default([]),
    storage_provider: choice(STORAGE_PROVIDERS).default('object_store'),
  }),
);
export type CreateBucketBody = z.infer<ReturnType<typeof createBucketBody>>;

const immutable = lazySchema(() => z.unknown().refine(() => false, 'This field cannot be changed.'));

/** Any of the changeable fields; `slug`, `app`, `uuid` and `id` are named as immutable, others unknown. */
export const patchBucketBody = lazySchema(() =>
  z.strictObject({
    name: name().optional(),
    app_category: appCategory().optional(),
    visibility: visibility().optional(),
    file_size_limit: fileSizeLimit().optional(),
    allowed_mime_types: allowedMimeTypes().optional(),
    slug: immutable().optional(),
    app: immutable().optional(),
    // Moving a bucket between providers would strand the bytes it already has.
    storage_provider: immutable().optional(),
    uuid: immutable().optional(),
    id: immutable().optional(),
  }),
);
export type PatchBucketBody = z.infer<ReturnType<typeof patchBucketBody>>;

export const BUCKET_ORDERING_FIELDS = [
  'name',
  'slug',
  'created_at',
  'updated_at',
  'visibility',
  'app_category',
  'file_size_limit',
  'object_count',
  'id',
] as const;
export type BucketOrderingField = (typeof BUCKET_ORDERING_FIELDS)[number];

export const listBucketsQuery = lazySchema(() =>
  z.strictObject({
    search: z.string().trim().max(200).optional(),
    ordering: orderingQuery(BUCKET_ORDERING_FIELDS).optional(),
    visibility: visibility().optional(),
    app_category: appCategory().optional(),
    ...pageQuery(),
  }),
);
export type ListBucketsQuery = z.infer<ReturnType<typeof listBucketsQuery>>;
