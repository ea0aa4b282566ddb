// The object body of the spec, built from a repository row and its bucket.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { isoTime } from '#shared/db/row-values.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { isOfficeEditable } from '../mime-rules.ts';
import type { ObjectRow } from './object-repository.ts';

/** The API URL of an object: each path segment percent-encoded, slashes kept. */
export function objectUrl(origin: string, bucket: Pick<BucketRow, 'app_slug' | 'slug'>, path: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `${origin}/api/apps/${encodeURIComponent(bucket.app_slug)}/storage/buckets/${encodeURIComponent(bucket.slug)}/objects/${encoded}`;
}

/** The wire shape of objectRecord, for the OpenAPI document and the test-time response check. */
export const objectSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      uuid: z.string(),
      bucket: z.number().int(),
      bucket_slug: z.string(),
      bucket_name: z.string(),
      filename: z.string(),
      file_path: z.string(),
      file_url: z.string(),
      size: z.number(),
      mimetype: z.string(),
      etag: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      visibility: z.string().nullable(),
      is_office_editable: z.boolean(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
      created_by: z.number().int().nullable(),
      modified_by: z.number().int().nullable(),
    })
    .meta({ id: 'StorageObject' }),
);

/** The wire shape of searchItem. */
export const objectSearchItemSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      uuid: z.string(),
      filename: z.string(),
      file: z.string(),
      size: z.number(),
      mimetype: z.string(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
    })
    .meta({ id: 'StorageObjectSearchItem' }),
);

export function objectRecord(object: ObjectRow, bucket: BucketRow, origin: string) {
  return {
    id: object.id,
    uuid: object.uuid,
    bucket: bucket.id,
    bucket_slug: bucket.slug,
    bucket_name: bucket.name,
    filename: object.filename,
    file_path: object.file_path,
    file_url: objectUrl(origin, bucket, object.file_path),
    size: Number(object.size),
    mimetype: object.mimetype,
    etag: object.etag,
    metadata: object.metadata,
    visibility: object.visibility,
    is_office_editable: isOfficeEditable(object.mimetype),
    created_at: isoTime(object.created_at),
    updated_at: isoTime(object.updated_at),
    created_by: object.created_by,
    modified_by: object.modified_by,
  };
}
export type ObjectRecord = ReturnType<typeof objectRecord>;

/** The short form of the legacy search answer. */
export function searchItem(object: ObjectRow) {
  return {
    id: object.id,
    uuid: object.uuid,
    filename: object.filename,
    file: object.file_path,
    size: Number(object.size),
    mimetype: object.mimetype,
    created_at: isoTime(object.created_at),
    updated_at: isoTime(object.updated_at),
  };
}
