// The sites endpoints: parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { siteConfigSchema, siteRecord, siteSchema } from './site-representation.ts';
import { createSiteBody, listSitesQuery, organizationParams, siteParams, updateSiteBody } from './site-schemas.ts';
import {
  changeSite,
  createSite,
  deleteSite,
  getSite,
  listAccessibleSites,
  listOrganizationSites,
  siteConfiguration,
  sitePrivileges,
  type SiteServicePorts,
} from './site-service.ts';

export function sitePorts(ctx: RequestContext): SiteServicePorts {
  return { db: ctx.runtime.db, platformDomain: ctx.runtime.config.platformDomain };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;

export const listSitesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/sites/',
  summary: 'List the sites the caller can access',
  query: listSitesQuery,
  envelope: 'C',
  response: siteSchema,
  handler: async (ctx, { query }) => {
    const page = await listAccessibleSites(sitePorts(ctx), ctx.user, query);
    return paged(page.rows.map(siteRecord), page.total, toPageRequest(query));
  },
});

export const listOrganizationSitesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/organizations/{org_slug}/sites/',
  summary: "List the organization's sites the caller can access",
  params: organizationParams,
  query: listSitesQuery,
  envelope: 'C',
  response: siteSchema,
  handler: async (ctx, { params, query }) => {
    const page = await listOrganizationSites(sitePorts(ctx), ctx.user, params.org_slug, query);
    return paged(page.rows.map(siteRecord), page.total, toPageRequest(query));
  },
});

export const createSiteRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/organizations/{org_slug}/sites/',
  summary: 'Create a site: its tenant schema and its primary domain come with it',
  params: organizationParams,
  body: createSiteBody,
  envelope: 'bare',
  response: siteSchema,
  status: 201,
  handler: async (ctx, { params, body }) => siteRecord(await createSite(sitePorts(ctx), ctx.user, params.org_slug, body)),
});

export const getSiteRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/sites/{site_slug}/',
  summary: 'Site detail (by slug or UUID)',
  params: siteParams,
  envelope: 'bare',
  response: siteSchema,
  handler: async (ctx, { params }) => siteRecord(await getSite(sitePorts(ctx), ctx.user, params.site_slug)),
});

export const updateSiteRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/cloud/sites/{site_slug}/',
  summary: 'Update name, description, environment or is_active of a site',
  params: siteParams,
  body: updateSiteBody,
  envelope: 'bare',
  response: siteSchema,
  handler: async (ctx, { params, body }) => siteRecord(await changeSite(sitePorts(ctx), ctx.user, params.site_slug, body)),
});

export const deleteSiteRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/cloud/sites/{site_slug}/',
  summary: 'Delete a site with its schema, domains and user permissions',
  params: siteParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await deleteSite(sitePorts(ctx), ctx.user, params.site_slug);
    return noContent();
  },
});

export const sitePrivilegesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/sites/{site_slug}/privileges/',
  summary: "The caller's effective permissions on the site",
  params: siteParams,
  envelope: 'bare',
  response: () => z.strictObject({ permissions: z.array(z.string()) }),
  handler: async (ctx, { params }) => ({ permissions: await sitePrivileges(sitePorts(ctx), ctx.user, params.site_slug) }),
});

/**
 * The current site's configuration, on a tenant host (or with X-Tenant):
 * `{uuid, slug, name, description, environment, is_active, schema_name, organization: {uuid, slug,
 * name}, domains: [{domain, is_primary}] (active ones, primary first), primary_domain (host or
 * null), permissions: [the caller's effective site permissions]}`.
 */
export const siteConfigRoute = defineRoute({
  method: 'GET',
  path: '/api/sites/config/',
  summary: "The current site's configuration (tenant host or X-Tenant)",
  access: 'user',
  host: 'tenant',
  errorStyle: 'generic',
  response: siteConfigSchema,
  envelope: 'bare',
  handler: async (ctx) => {
    const config = await siteConfiguration(sitePorts(ctx), ctx.user, ctx.site);
    const { created_at: _created, updated_at: _updated, ...site } = siteRecord(config.site);
    return {
      ...site,
      domains: config.domains,
      primary_domain: config.domains.find((domain) => domain.is_primary)?.domain ?? null,
      permissions: config.permissions,
    };
  },
});
