// The bucket body of the spec, built from a repository row.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { isoTime } from '#shared/db/row-values.ts';
import type { BucketRow } from './bucket-repository.ts';

/** The wire shape of bucketRecord, for the OpenAPI document and the test-time response check. */
export const bucketSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      uuid: z.string(),
      name: z.string(),
      slug: z.string(),
      visibility: z.string(),
      file_size_limit: z.number(),
      allowed_mime_types: z.array(z.string()),
      app_category: z.string(),
      storage_provider: z.string(),
      app: z.number().int(),
      object_count: z.number().int(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
      created_by: z.number().int().nullable(),
      modified_by: z.number().int().nullable(),
    })
    .meta({ id: 'Bucket' }),
);

export function bucketRecord(bucket: BucketRow) {
  return {
    id: bucket.id,
    uuid: bucket.uuid,
    name: bucket.name,
    slug: bucket.slug,
    visibility: bucket.visibility,
    file_size_limit: Number(bucket.file_size_limit),
    allowed_mime_types: bucket.allowed_mime_types,
    app_category: bucket.app_category,
    storage_provider: bucket.storage_provider,
    app: bucket.app_id,
    object_count: bucket.object_count,
    created_at: isoTime(bucket.created_at),
    updated_at: isoTime(bucket.updated_at),
    created_by: bucket.created_by,
    modified_by: bucket.modified_by,
  };
}
