// The app role endpoints (`/api/app/{app_slug}/roles`, tenant hosts): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { changeAppRole, createAppRole, existingApp, existingAppRole, listRolesOfApp, removeAppRole } from './app-role-service.ts';
import { appRoleRecord, appRoleSchema, roleMessageSchema } from './role-representation.ts';
import { appParams, appRoleParams, changeAppRoleBody, createAppRoleBody, deleteAppRoleQuery, listAppRolesQuery } from './role-schemas.ts';

const common = { host: 'tenant', access: 'user', errorStyle: 'generic' } as const;

export const listAppRolesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/app/{app_slug}/roles',
  summary: "List an app's roles",
  params: appParams,
  query: listAppRolesQuery,
  envelope: 'A',
  response: appRoleSchema,
  message: 'App roles retrieved successfully',
  handler: async (ctx, { params, query }) => {
    const page = await listRolesOfApp(ctx.runtime.db, ctx.site, params.app_slug, { ...query, page: toPageRequest(query) });
    return paged(page.rows.map(appRoleRecord), page.total, toPageRequest(query));
  },
});

export const createAppRoleRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/app/{app_slug}/roles',
  summary: 'Create an app role, at the root or under a parent role of the same app',
  params: appParams,
  body: createAppRoleBody,
  envelope: 'bare',
  response: appRoleSchema,
  status: 201,
  handler: async (ctx, { params, body }) => appRoleRecord(await createAppRole(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, body)),
});

export const getAppRoleRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/app/{app_slug}/roles/{role_slug}',
  summary: 'App role detail',
  params: appRoleParams,
  envelope: 'bare',
  response: appRoleSchema,
  handler: async (ctx, { params }) => {
    const { db } = ctx.runtime;
    return appRoleRecord(await existingAppRole(db, ctx.site, await existingApp(db, ctx.site, params.app_slug), params.role_slug));
  },
});

export const changeAppRoleRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/app/{app_slug}/roles/{role_slug}',
  summary: 'Change the description or move the role ("" moves it to the root); the name cannot change',
  params: appRoleParams,
  body: changeAppRoleBody,
  envelope: 'bare',
  response: appRoleSchema,
  handler: async (ctx, { params, body }) =>
    appRoleRecord(await changeAppRole(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.role_slug, body)),
});

export const deleteAppRoleRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/app/{app_slug}/roles/{role_slug}',
  summary: 'Delete a role with its descendants (remove_child_roles=true) or move its children to its parent',
  params: appRoleParams,
  query: deleteAppRoleQuery,
  envelope: 'bare',
  response: roleMessageSchema,
  handler: async (ctx, { params, query }) => {
    const removed = await removeAppRole(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.role_slug, query.remove_child_roles);
    return {
      message: 'Role deleted successfully',
      detail: query.remove_child_roles
        ? `Deleted ${removed} role(s): the role and its descendants.`
        : 'Deleted the role; its children moved to its parent.',
    };
  },
});
