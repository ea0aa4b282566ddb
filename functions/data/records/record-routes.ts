// The record endpoints of a materialized table: parse, call the record services, return what they
// answer (they decide status and shape).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { jsonObject } from '#shared/http/json-object.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import { loadTableDescriptor } from '../tables/table-lookup.ts';
import { assertMayWriteRecords } from './record-access.ts';
import { assertReachesReferenceSource } from '../relations/reference-service.ts';
import {
  createAnswer,
  deleteRecord,
  deleteRecordsByFilter,
  deleteRecordsByIds,
  patchRecord,
  patchRecords,
  upsertAnswer,
} from './record-service.ts';
import type { TableAddress } from './fused-reads.ts';
import { listTableRecords } from './record-list.ts';
import {
  recordDetailSchema,
  recordListSchema,
  recordUpsertSchema,
  recordWriteSchema,
  recordsDeletedSchema,
} from './record-representation.ts';
import { readTableRecord } from './record-detail.ts';
import { queryError } from './query/query-error.ts';
import { asksForRelations, listWithRelations, readWithRelations } from '../relations/relations-service.ts';

const tableParams = lazySchema(() => z.object({ app_slug: z.string().min(1).max(100), name: z.string().min(1).max(63) }));
const recordParams = lazySchema(() => tableParams().extend({ id: z.string().min(1).max(200) }));
/** One record or an array of them; the record service validates every field against the table. */
// `jsonObject`, not `z.record`: a record's keys reach the validator as sent, `__proto__` included.
const recordsBody = lazySchema(() => z.union([jsonObject(), z.array(z.unknown()).max(10_000)]));
const patchesBody = lazySchema(() => z.array(jsonObject()).min(1).max(10_000));

const common = { host: 'tenant', access: 'user', errorStyle: 'data', exactIntegers: true } as const;
const TABLE_PATH = '/api/apps/{app_slug}/datatables/{name}/data/';

/** The table of a write, after the caller's right to write records is checked. */
async function writableTable(ctx: RequestContext, params: TableAddress): Promise<TableDescriptor> {
  await assertMayWriteRecords(ctx.runtime.db, ctx.site, ctx.user);
  const { table, descriptor } = await loadTableDescriptor(ctx.runtime.db, ctx.site, params.app_slug, params.name);
  // A reference: writing through it needs the right to write the source app's records.
  if (table.app_slug !== params.app_slug) await assertReachesReferenceSource(ctx.runtime.db, ctx.site, ctx.user, table.app_slug, 'write');
  return descriptor;
}

/** The raw query, every occurrence kept: the record query language refuses repeated parameters. */
function queryEntries(ctx: RequestContext): Array<[string, string]> {
  return [...new URLSearchParams(ctx.request.rawQuery)];
}

/** DELETE on the collection takes exactly one of `ids` and `filter`. */
function singleOption(ctx: RequestContext, allowed: string[]): [string, string] {
  const entries = queryEntries(ctx);
  const unknown = entries.find(([key]) => !allowed.includes(key));
  if (unknown !== undefined) throw queryError(unknown[0], 'is not a parameter of this request');
  if (entries.length !== 1) throw queryError(allowed.join(' or '), 'give exactly one of them');
  return entries[0]!;
}

export const listRecordsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: TABLE_PATH,
  summary: 'List records with filters, sorting, pagination, search and aggregation; _count=exact|planned|none',
  params: tableParams,
  response: recordListSchema,
  envelope: 'bare',
  deferContext: true,
  handler: async (ctx, { params }) => {
    const query = queryEntries(ctx);
    if (!asksForRelations(query)) return listTableRecords(ctx, params);
    return listWithRelations(ctx, params, query, ctx.runtime.config.relations);
  },
});

export const createRecordsRoute = defineRoute({
  ...common,
  method: 'POST',
  path: TABLE_PATH,
  summary: 'Create one record, or many in one statement',
  params: tableParams,
  body: recordsBody,
  response: recordWriteSchema,
  envelope: 'bare',
  status: 201,
  handler: async (ctx, { params, body }) => createAnswer(ctx.runtime.db, await writableTable(ctx, params), body),
});

export const upsertRecordsRoute = defineRoute({
  ...common,
  method: 'POST',
  path: `${TABLE_PATH}upsert/`,
  summary: 'Insert or update by unique_fields: 201 when a record was inserted, else 200',
  params: tableParams,
  query: () => z.object({ unique_fields: z.string().min(1).max(500) }),
  body: recordsBody,
  response: recordUpsertSchema,
  envelope: 'bare',
  handler: async (ctx, { params, query, body }) =>
    upsertAnswer(ctx.runtime.db, await writableTable(ctx, params), body, query.unique_fields),
});

export const patchRecordsRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: TABLE_PATH,
  summary: 'Update many records, each identified by its primary key',
  params: tableParams,
  body: patchesBody,
  response: recordWriteSchema,
  envelope: 'bare',
  handler: async (ctx, { params, body }) => ({ data: await patchRecords(ctx.runtime.db, await writableTable(ctx, params), body) }),
});

export const deleteRecordsRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: TABLE_PATH,
  summary: 'Delete records by ?ids=a,b or by ?filter=<JSON filters>',
  params: tableParams,
  response: recordsDeletedSchema,
  envelope: 'bare',
  handler: async (ctx, { params }) => {
    const [option, value] = singleOption(ctx, ['ids', 'filter']);
    const table = await writableTable(ctx, params);
    return option === 'ids' ? deleteRecordsByIds(ctx.runtime.db, table, value) : deleteRecordsByFilter(ctx.runtime.db, table, value);
  },
});

export const getRecordRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${TABLE_PATH}{id}/`,
  summary: 'One record by its primary key, with populate',
  params: recordParams,
  response: recordDetailSchema,
  envelope: 'bare',
  deferContext: true,
  handler: async (ctx, { params }) => {
    const query = queryEntries(ctx);
    if (query.length === 0) return readTableRecord(ctx, params, params.id);
    return readWithRelations(ctx, params, params.id, query, ctx.runtime.config.relations);
  },
});

export const patchRecordRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: `${TABLE_PATH}{id}/`,
  summary: 'Update some fields of one record',
  params: recordParams,
  body: jsonObject,
  response: recordWriteSchema,
  envelope: 'bare',
  handler: async (ctx, { params, body }) => ({
    data: await patchRecord(ctx.runtime.db, await writableTable(ctx, params), params.id, body),
  }),
});

export const deleteRecordRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: `${TABLE_PATH}{id}/`,
  summary: 'Delete one record (soft when the table has is_deleted)',
  params: recordParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await deleteRecord(ctx.runtime.db, await writableTable(ctx, params), params.id);
    return noContent();
  },
});
