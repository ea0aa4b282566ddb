// The site role endpoints (`/api/roles/`, tenant hosts): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { roleMessageSchema, siteRoleRecord, siteRoleSchema } from './role-representation.ts';
import { changeSiteRoleBody, createSiteRoleBody, listSiteRolesQuery, roleParams } from './role-schemas.ts';
import { changeSiteRole, createSiteRole, listRolesOfSite, removeSiteRole, siteRoleDetail } from './site-role-service.ts';

const common = { host: 'tenant', access: 'user', errorStyle: 'generic' } as const;

export const listSiteRolesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/roles/',
  summary: "List the site's roles with their app roles",
  query: listSiteRolesQuery,
  envelope: 'A',
  response: siteRoleSchema,
  message: 'Site roles retrieved successfully',
  handler: async (ctx, { query }) => {
    const page = await listRolesOfSite(ctx.runtime.db, ctx.site, { ...query, page: toPageRequest(query) });
    return paged(
      page.rows.map((entry) => siteRoleRecord(entry.role, entry.appRoles)),
      page.total,
      toPageRequest(query),
    );
  },
});

export const createSiteRoleRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/roles/',
  summary: 'Create a site role grouping app roles',
  body: createSiteRoleBody,
  envelope: 'bare',
  response: siteRoleSchema,
  status: 201,
  handler: async (ctx, { body }) => {
    const created = await createSiteRole(ctx.runtime.db, ctx.site, ctx.user, body);
    return siteRoleRecord(created.role, created.appRoles);
  },
});

export const getSiteRoleRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/roles/{slug}',
  summary: 'Site role detail',
  params: roleParams,
  envelope: 'bare',
  response: siteRoleSchema,
  handler: async (ctx, { params }) => {
    const detail = await siteRoleDetail(ctx.runtime.db, ctx.site, params.slug);
    return siteRoleRecord(detail.role, detail.appRoles);
  },
});

export const changeSiteRoleRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/roles/{slug}',
  summary: 'Change the name, description or app roles (role_slugs replaces them)',
  params: roleParams,
  body: changeSiteRoleBody,
  envelope: 'bare',
  response: siteRoleSchema,
  handler: async (ctx, { params, body }) => {
    const changed = await changeSiteRole(ctx.runtime.db, ctx.site, ctx.user, params.slug, body);
    return siteRoleRecord(changed.role, changed.appRoles);
  },
});

export const deleteSiteRoleRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/roles/{slug}',
  summary: 'Delete a site role and all its memberships',
  params: roleParams,
  envelope: 'bare',
  response: roleMessageSchema,
  handler: async (ctx, { params }) => {
    await removeSiteRole(ctx.runtime.db, ctx.site, ctx.user, params.slug);
    return { message: 'Site role deleted successfully', detail: 'The role and all its memberships were removed.' };
  },
});
