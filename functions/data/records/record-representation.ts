// The wire shapes of the record endpoints (data-service spec, Record operations), for the OpenAPI
// document and the test-time response check. A record's fields are the table schema's own, so a
// record is an open object; the envelopes around records are closed.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';

/** One record: the fields its table defines (an omitted single-field `id` comes back generated). */
export const dataRecordSchema = lazySchema(() =>
  z.record(z.string(), z.unknown()).meta({ id: 'DataRecord', description: "A record's fields, as its table schema defines them" }),
);

/** `format=graph`: the page's records as nodes and the edges between them. */
const recordGraphSchema = lazySchema(() =>
  z.strictObject({
    nodes: z.array(dataRecordSchema()),
    edges: z.array(z.strictObject({ id: z.unknown(), from: z.unknown(), to: z.unknown(), type: z.string(), metadata: z.unknown() })),
  }),
);

/** A page of records (`format=graph` turns data into nodes and edges; aggregates drop the paging). */
export const recordListSchema = lazySchema(() =>
  z
    .strictObject({
      data: z.union([z.array(dataRecordSchema()), recordGraphSchema()]),
      total: z.union([z.number().int(), z.string()]).nullable().meta({ description: 'Null with _count=none' }),
      page: z.number().int().optional(),
      page_size: z.number().int().optional(),
      total_is_estimate: z.boolean().optional(),
      next: z.string().nullable().optional(),
    })
    .meta({ id: 'DataRecordList' }),
);

/**
 * One record; `include=descendants|ancestors` adds the related records under the relationship's
 * label beside it, `format=tree` answers the record's tree with its size.
 */
export const recordDetailSchema = lazySchema(() =>
  z
    .object({ data: z.union([dataRecordSchema(), z.array(dataRecordSchema())]), total: z.number().int().optional() })
    .catchall(z.array(dataRecordSchema()))
    .meta({ id: 'DataRecordDetail' }),
);

/** A create or patch: one record, or the array of them for a bulk request. */
export const recordWriteSchema = lazySchema(() =>
  z.strictObject({ data: z.union([dataRecordSchema(), z.array(dataRecordSchema())]) }).meta({ id: 'DataRecordWrite' }),
);

/** An upsert: `created` is a boolean for one record, a count (with `updated`) for an array. */
export const recordUpsertSchema = lazySchema(() =>
  z
    .strictObject({
      data: z.union([dataRecordSchema(), z.array(dataRecordSchema())]),
      created: z.union([z.boolean(), z.number().int()]),
      updated: z.number().int().optional(),
    })
    .meta({ id: 'DataRecordUpsert' }),
);

/** A bulk delete: the count, and the ids when they were named. */
export const recordsDeletedSchema = lazySchema(() =>
  z.strictObject({ deleted: z.number().int(), ids: z.array(z.string()).optional() }).meta({ id: 'DataRecordsDeleted' }),
);
