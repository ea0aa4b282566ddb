// The datasources endpoints of an app: parse, call the service, answer.
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { datasourceRecord, datasourceSchema, datasourceStatsSchema } from './app-representation.ts';
import { appParams, createDatasourceBody, datasourceParams, patchDatasourceBody, replaceDatasourceBody } from './app-schemas.ts';
import {
  changeDatasource,
  createDatasource,
  datasourcesOf,
  datasourceStats,
  existingDatasource,
  removeDatasource,
} from './datasource-service.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user' } as const;
const COLLECTION = '/api/apps/{app_slug}/datasources/';
const ITEM = '/api/apps/{app_slug}/datasources/{datasource_slug}/';

export const listDatasourcesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: COLLECTION,
  summary: "List an app's datasources",
  params: appParams,
  envelope: 'bare',
  response: () => z.array(datasourceSchema()),
  handler: async (ctx, { params }) => (await datasourcesOf(ctx.runtime.db, ctx.site, params.app_slug)).map(datasourceRecord),
});

export const createDatasourceRoute = defineRoute({
  ...common,
  method: 'POST',
  path: COLLECTION,
  summary: 'Create a datasource (flat_table or jsonb)',
  params: appParams,
  body: createDatasourceBody,
  envelope: 'bare',
  response: datasourceSchema,
  status: 201,
  handler: async (ctx, { params, body }) =>
    datasourceRecord(await createDatasource(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body)),
});

export const getDatasourceRoute = defineRoute({
  ...common,
  method: 'GET',
  path: ITEM,
  summary: 'Datasource detail',
  params: datasourceParams,
  envelope: 'bare',
  response: datasourceSchema,
  handler: async (ctx, { params }) =>
    datasourceRecord(await existingDatasource(ctx.runtime.db, ctx.site, params.app_slug, params.datasource_slug)),
});

function changeDatasourceRoute(method: 'PUT' | 'PATCH') {
  return defineRoute({
    ...common,
    method,
    path: ITEM,
    summary: method === 'PUT' ? 'Replace a datasource' : 'Change some fields of a datasource',
    params: datasourceParams,
    body: () => (method === 'PUT' ? replaceDatasourceBody() : patchDatasourceBody()),
    envelope: 'bare',
    response: datasourceSchema,
    handler: async (ctx, { params, body }) =>
      datasourceRecord(await changeDatasource(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.datasource_slug, body)),
  });
}
export const replaceDatasourceRoute = changeDatasourceRoute('PUT');
export const patchDatasourceRoute = changeDatasourceRoute('PATCH');

export const deleteDatasourceRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: ITEM,
  summary: 'Delete a datasource that has no tables',
  params: datasourceParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await removeDatasource(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.datasource_slug);
    return noContent();
  },
});

export const datasourceStatsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${ITEM}stats/`,
  summary: 'Table counts of a datasource',
  params: datasourceParams,
  response: datasourceStatsSchema,
  envelope: 'bare',
  handler: (ctx, { params }) => datasourceStats(ctx.runtime.db, ctx.site, params.app_slug, params.datasource_slug),
});
