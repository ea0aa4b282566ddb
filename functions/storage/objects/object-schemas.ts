// Request shapes of the object endpoints. Paths in bodies are plain strings here; the services
// normalise and check them (object-keys.ts) so every way in refuses the same things.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { jsonValue } from '#shared/json/json-value.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { flagQuery, orderingQuery } from '#shared/http/query-params.ts';
import { bucketParams, choice, VISIBILITIES } from '../buckets/bucket-schemas.ts';

export const objectParams = lazySchema(() => bucketParams().extend({ key: z.string().min(1) }));
export type ObjectParams = z.infer<ReturnType<typeof objectParams>>;

const visibility = lazySchema(() => choice(VISIBILITIES));

const bytes = lazySchema(() => z.string().regex(/^\d+$/, 'A whole number of bytes is required.').transform(Number));

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const instant = lazySchema(() =>
  z
    .string()
    .refine((value) => ISO_8601.test(value) && !Number.isNaN(Date.parse(value)), 'An ISO 8601 date or date-time is required.')
    .transform((value) => new Date(value)),
);

const text = lazySchema(() => z.string().max(1024, 'Ensure this value has no more than 1024 characters.'));

export const MIME_CATEGORIES = ['image', 'video', 'audio', 'application', 'text'] as const;
export const OBJECT_ORDERING_FIELDS = ['created_at', 'updated_at', 'size', 'filename', 'path'] as const;
export type ObjectOrderingField = (typeof OBJECT_ORDERING_FIELDS)[number];

/** Every filter group of the spec; anything else is a 400 naming the parameter. */
export const listObjectsQuery = lazySchema(() =>
  z.strictObject({
    size__gte: bytes().optional(),
    size__lte: bytes().optional(),
    size__gt: bytes().optional(),
    size__lt: bytes().optional(),
    min_size: bytes().optional(),
    max_size: bytes().optional(),
    created_at__gte: instant().optional(),
    created_at__lte: instant().optional(),
    updated_at__gte: instant().optional(),
    updated_at__lte: instant().optional(),
    created_after: instant().optional(),
    created_before: instant().optional(),
    search: text().optional(),
    filename__icontains: text().optional(),
    prefix: text().optional(),
    file: text().optional(),
    file__icontains: text().optional(),
    file__startswith: text().optional(),
    file__istartswith: text().optional(),
    metadata_search: text().optional(),
    mimetype: text().optional(),
    mimetype__in: text()
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim().toLowerCase())
          .filter((item) => item !== ''),
      )
      .optional(),
    mimetype_category: choice(MIME_CATEGORIES).optional(),
    visibility: visibility().optional(),
    created_by_me: flagQuery().optional(),
    modified_by_me: flagQuery().optional(),
    created_by__username: text().optional(),
    created_by__username__icontains: text().optional(),
    ordering: orderingQuery(OBJECT_ORDERING_FIELDS).optional(),
    ...pageQuery(),
  }),
);
export type ListObjectsQuery = z.infer<ReturnType<typeof listObjectsQuery>>;

export const downloadQuery = lazySchema(() =>
  z.strictObject({
    metadata: flagQuery().optional(),
    /** `true` serves the file as an attachment whatever its type. */
    download: flagQuery().optional(),
  }),
);
export type DownloadQuery = z.infer<ReturnType<typeof downloadQuery>>;

const metadataObject = lazySchema(() => z.record(z.string().max(255), jsonValue()));

export const patchObjectBody = lazySchema(() =>
  z.strictObject({
    /** Merged into the stored metadata; a `null` value removes its key. */
    metadata: metadataObject().optional(),
    visibility: visibility().nullable().optional(),
    filename: z.string().optional(),
  }),
);
export type PatchObjectBody = z.infer<ReturnType<typeof patchObjectBody>>;

export const MAX_BATCH_DELETE = 1000;
export const batchDeleteBody = lazySchema(() =>
  z.strictObject({
    paths: z
      .array(z.string())
      .min(1, 'Give at least one path.')
      .max(MAX_BATCH_DELETE, `Ensure this list has no more than ${MAX_BATCH_DELETE} paths.`),
  }),
);
export type BatchDeleteBody = z.infer<ReturnType<typeof batchDeleteBody>>;

export const SEARCH_COLUMNS = ['created_at', 'updated_at', 'size', 'filename'] as const;
export const MAX_SEARCH_LIMIT = 1000;
export const searchBody = lazySchema(() =>
  z.strictObject({
    prefix: text().optional(),
    search: text().optional(),
    sortBy: z
      .strictObject({
        column: choice(SEARCH_COLUMNS),
        order: choice(['asc', 'desc']).default('asc'),
      })
      .optional(),
    // Over the maximum is clamped, like page sizes of lists.
    limit: z
      .number()
      .int()
      .min(1, 'Ensure this value is at least 1.')
      .default(100)
      .transform((limit) => Math.min(limit, MAX_SEARCH_LIMIT)),
    offset: z.number().int().min(0, 'Ensure this value is at least 0.').default(0),
  }),
);
export type SearchBody = z.infer<ReturnType<typeof searchBody>>;

export const transferBody = lazySchema(() =>
  z.strictObject({
    source_path: z.string(),
    destination_bucket: z.string().min(1).max(100).optional(),
    destination_path: z.string(),
  }),
);
export type TransferBody = z.infer<ReturnType<typeof transferBody>>;

/** The legacy upload's and batch upload's `metadata` fields: JSON text of an object (or an array of them). */
export const metadataField = metadataObject;
export const batchMetadataField = lazySchema(() => z.union([metadataObject(), z.array(metadataObject())]));
export const batchPathsField = lazySchema(() => z.array(z.string()));

/** Asking for a presigned upload: what will be sent, so it can be checked before a byte moves. */
export const uploadUrlBody = lazySchema(() =>
  z.strictObject({
    size: z.number().int('A whole number of bytes is required.').min(0, 'Ensure this value is at least 0.'),
    /** The file's type; absent (or octet-stream), the one its name suggests. */
    content_type: z.string().max(255).optional(),
    /** Defaults to the last segment of the path. */
    filename: z.string().optional(),
    metadata: metadataObject().optional(),
  }),
);
export type UploadUrlBody = z.infer<ReturnType<typeof uploadUrlBody>>;

export const completeUploadBody = lazySchema(() =>
  z.strictObject({
    /** The `object_uuid` the upload URL came with. */
    object_uuid: z.uuid('A UUID is required.'),
  }),
);
export type CompleteUploadBody = z.infer<ReturnType<typeof completeUploadBody>>;
