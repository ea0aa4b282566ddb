// The organizations endpoints: parse, call the service, answer (Envelope A, as the spec gives).
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { organizationRecord, organizationSchema } from './organization-representation.ts';
import { changeOrganizationBody, createOrganizationBody, listOrganizationsQuery, organizationParams } from './organization-schemas.ts';
import {
  changeOrganization,
  createOrganization,
  deleteOrganization,
  findVisibleOrganization,
  listVisibleOrganizations,
  organizationPrivileges,
  type OrganizationServicePorts,
} from './organization-service.ts';

function ports(ctx: RequestContext): OrganizationServicePorts {
  return { db: ctx.runtime.db, now: ctx.runtime.now };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;

export const listOrganizationsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/organizations/',
  summary: 'List the organizations the caller belongs to (all of them for superusers)',
  query: listOrganizationsQuery,
  envelope: 'A',
  response: organizationSchema,
  message: 'Organizations retrieved successfully',
  handler: async (ctx, { query }) => {
    const page = await listVisibleOrganizations(ports(ctx), ctx.user, query);
    return paged(page.rows.map(organizationRecord), page.total, toPageRequest(query));
  },
});

export const createOrganizationRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/organizations/',
  summary: 'Create an organization; the caller becomes its owner and an admin',
  body: createOrganizationBody,
  envelope: 'A',
  response: organizationSchema,
  message: 'Organization created successfully',
  status: 201,
  handler: async (ctx, { body }) => organizationRecord(await createOrganization(ports(ctx), ctx.user, body)),
});

export const getOrganizationRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/organizations/{org_slug}/',
  summary: 'Organization detail, by slug or UUID',
  params: organizationParams,
  envelope: 'A',
  response: organizationSchema,
  message: 'Organization retrieved successfully',
  handler: async (ctx, { params }) => {
    const standing = await findVisibleOrganization(ports(ctx), ctx.user, params.org_slug);
    return organizationRecord(standing.organization);
  },
});

export const changeOrganizationRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/cloud/organizations/{org_slug}/',
  summary: 'Change the name or active flag of an organization (managers)',
  params: organizationParams,
  body: changeOrganizationBody,
  envelope: 'A',
  response: organizationSchema,
  message: 'Organization updated successfully',
  handler: async (ctx, { params, body }) => organizationRecord(await changeOrganization(ports(ctx), ctx.user, params.org_slug, body)),
});

export const deleteOrganizationRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/cloud/organizations/{org_slug}/',
  summary: 'Delete an organization with its sites, memberships and invitations (holders of delete_organization)',
  params: organizationParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await deleteOrganization(ports(ctx), ctx.user, params.org_slug);
    return noContent();
  },
});

export const organizationPrivilegesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/organizations/{org_slug}/privileges/',
  summary: "The caller's effective permissions in the organization, group-inherited included",
  params: organizationParams,
  envelope: 'bare',
  response: () => z.strictObject({ permissions: z.array(z.string()) }),
  handler: async (ctx, { params }) => ({ permissions: await organizationPrivileges(ports(ctx), ctx.user, params.org_slug) }),
});
