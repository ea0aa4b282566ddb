// The edges endpoints of a hierarchy table: list with filters, create a batch, update one, delete by
// ids. Parse, call the edges service, answer in the data service's shapes.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { defineRoute, type AnyRoute } from '#shared/http/route.ts';
import { jsonObject } from '#shared/http/json-object.ts';
import { createEdges, deleteEdges, listEdges, updateEdge } from './edges-service.ts';

/** Both URL forms, as the datatable item routes: with the datasource segment or without it. */
const tableParams = lazySchema(() =>
  z.object({
    app_slug: z.string().min(1).max(100),
    datasource_slug: z.string().min(1).max(100).optional(),
    name: z.string().min(1).max(63),
  }),
);
const edgeParams = lazySchema(() => tableParams().extend({ edge_id: z.string().min(1).max(40) }));
const listQuery = lazySchema(() =>
  z
    .object({
      from_id: z.string().max(200).optional(),
      to_id: z.string().max(200).optional(),
      types: z.string().max(2000).optional(),
      page: z.string().max(12).optional(),
      page_size: z.string().max(12).optional(),
      _count: z.string().max(20).optional(),
    })
    .strict(),
);
/** An edge (data-service spec): id, from_id, to_id, type, metadata, created_at. */
const edgeSchema = lazySchema(() =>
  z.record(z.string(), z.unknown()).meta({ id: 'Edge', description: 'id, from_id, to_id, type, metadata, created_at' }),
);
const edgeListSchema = lazySchema(() =>
  z
    .strictObject({
      total: z.number().int().nullable().meta({ description: 'Null with _count=none' }),
      page: z.number().int(),
      page_size: z.number().int(),
      total_is_estimate: z.boolean().optional().meta({ description: 'With _count=planned: whether total is the planner estimate' }),
      next: z.string().nullable().optional().meta({ description: 'With _count=none: the next page, null on the last' }),
      results: z.array(edgeSchema()),
    })
    .meta({ id: 'EdgeList' }),
);
const createdEdgesSchema = lazySchema(() =>
  z.strictObject({ total: z.number().int(), results: z.array(edgeSchema()) }).meta({ id: 'EdgesCreated' }),
);

const common = { host: 'tenant', access: 'user', errorStyle: 'data', exactIntegers: true, envelope: 'bare' } as const;

function edgeRoutesAt(edgesPath: string): AnyRoute[] {
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: edgesPath,
      summary: 'Edges of a hierarchy table, filtered by from_id, to_id and types',
      params: tableParams,
      query: listQuery,
      response: edgeListSchema,
      handler: (ctx, { params, query }) =>
        listEdges(ctx.runtime.db, ctx.site, params, query, (page) => ctx.urlWithQuery({ page: String(page) })),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: edgesPath,
      summary: 'Create edges (all or none)',
      params: tableParams,
      body: () => z.array(z.unknown()).max(10_000),
      status: 201,
      response: createdEdgesSchema,
      handler: (ctx, { params, body }) => createEdges(ctx.runtime.db, ctx.site, ctx.user, params, body),
    }),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: edgesPath,
      summary: 'Delete edges by {ids}',
      params: tableParams,
      body: jsonObject,
      response: () => z.strictObject({ deleted: z.number().int() }),
      handler: (ctx, { params, body }) => deleteEdges(ctx.runtime.db, ctx.site, ctx.user, params, body),
    }),
    defineRoute({
      ...common,
      method: 'PATCH',
      path: `${edgesPath}{edge_id}/`,
      summary: "Change an edge's metadata (or its ends and type)",
      params: edgeParams,
      body: jsonObject,
      response: () => z.strictObject({ data: edgeSchema() }),
      handler: (ctx, { params, body }) => updateEdge(ctx.runtime.db, ctx.site, ctx.user, params, params.edge_id, body),
    }),
  ];
}

export const edgeRoutes: readonly AnyRoute[] = [
  ...edgeRoutesAt('/api/apps/{app_slug}/datatables/{name}/edges/'),
  ...edgeRoutesAt('/api/apps/{app_slug}/datasources/{datasource_slug}/datatables/{name}/edges/'),
];
