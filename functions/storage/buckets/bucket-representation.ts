// The bucket body of the spec, built from a repository row.
import { isoTime } from '#shared/db/row-values.ts';
import type { BucketRow } from './bucket-repository.ts';

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
