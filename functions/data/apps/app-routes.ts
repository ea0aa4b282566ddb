// The apps endpoints (tenant level): parse, call the service, answer.
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { appDetail, appDetailSchema, appListItem, appListItemSchema, appStatsSchema } from './app-representation.ts';
import { appParams, createAppBody, patchAppBody, replaceAppBody } from './app-schemas.ts';
import { appStats, appWithDatasources, changeApp, createApp, listApps, restoreApp, softDeleteApp } from './app-service.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user' } as const;

export const listAppsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/apps/',
  summary: "List the site's active apps",
  envelope: 'bare',
  response: () => z.array(appListItemSchema()),
  handler: async (ctx) => (await listApps(ctx.runtime.db, ctx.site)).map(appListItem),
});

export const createAppRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/apps/',
  summary: 'Create an app (the slug comes from the name)',
  body: createAppBody,
  envelope: 'bare',
  response: appDetailSchema,
  status: 201,
  handler: async (ctx, { body }) => {
    const { app, datasources } = await createApp(ctx.runtime.db, ctx.site, ctx.user, body);
    return appDetail(app, datasources);
  },
});

export const getAppRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/apps/{app_slug}/',
  summary: 'App detail with its datasources',
  params: appParams,
  envelope: 'bare',
  response: appDetailSchema,
  handler: async (ctx, { params }) => {
    const { app, datasources } = await appWithDatasources(ctx.runtime.db, ctx.site, params.app_slug);
    return appDetail(app, datasources);
  },
});

function changeAppRoute(method: 'PUT' | 'PATCH') {
  return defineRoute({
    ...common,
    method,
    path: '/api/apps/{app_slug}/',
    summary: method === 'PUT' ? "Replace an app's name and description" : "Change an app's name or description",
    params: appParams,
    body: () => (method === 'PUT' ? replaceAppBody() : patchAppBody()),
    envelope: 'bare',
    response: appDetailSchema,
    handler: async (ctx, { params, body }) => {
      const { app, datasources } = await changeApp(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body);
      return appDetail(app, datasources);
    },
  });
}
export const replaceAppRoute = changeAppRoute('PUT');
export const patchAppRoute = changeAppRoute('PATCH');

export const deleteAppRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/apps/{app_slug}/',
  summary: 'Soft-delete an app; its datasources and datatables become inactive',
  params: appParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await softDeleteApp(ctx.runtime.db, ctx.site, ctx.user, params.app_slug);
    return noContent();
  },
});

export const restoreAppRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/apps/{app_slug}/restore/',
  summary: 'Restore a soft-deleted app with its datasources and datatables',
  params: appParams,
  response: () => z.strictObject({ message: z.string() }),
  envelope: 'bare',
  handler: (ctx, { params }) => restoreApp(ctx.runtime.db, ctx.site, ctx.user, params.app_slug),
});

export const appStatsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/apps/{app_slug}/stats/',
  summary: 'Counts of datasources and tables of an app',
  params: appParams,
  response: appStatsSchema,
  envelope: 'bare',
  handler: (ctx, { params }) => appStats(ctx.runtime.db, ctx.site, params.app_slug),
});
