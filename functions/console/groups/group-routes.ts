// The groups endpoints: parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { groupRecord, groupSchema } from './group-representation.ts';
import { groupBody, idParams, listGroupsQuery } from './group-schemas.ts';
import {
  createGroup,
  listVisibleGroups,
  removeGroup,
  replaceGroupContents,
  visibleGroup,
  type GroupServicePorts,
} from './group-service.ts';

export function groupPorts(ctx: RequestContext): GroupServicePorts {
  return { db: ctx.runtime.db };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;

export const listGroupsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/groups/',
  summary: 'List groups with their permissions and members',
  query: listGroupsQuery,
  envelope: 'C',
  response: groupSchema,
  handler: async (ctx, { query }) => {
    const page = await listVisibleGroups(groupPorts(ctx), ctx.user, query);
    return paged(page.rows.map(groupRecord), page.total, toPageRequest(query));
  },
});

export const createGroupRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/groups/',
  summary: 'Create a group with its permissions and members (superusers and change_user holders)',
  body: groupBody,
  envelope: 'bare',
  response: groupSchema,
  status: 201,
  handler: async (ctx, { body }) => groupRecord(await createGroup(groupPorts(ctx), ctx.user, body)),
});

export const getGroupRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/groups/{id}/',
  summary: 'Group detail',
  params: idParams,
  envelope: 'bare',
  response: groupSchema,
  handler: async (ctx, { params }) => groupRecord(await visibleGroup(groupPorts(ctx), ctx.user, params.id)),
});

export const replaceGroupRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/cloud/groups/{id}/',
  summary: 'Rename a group and replace its permissions and members',
  params: idParams,
  body: groupBody,
  envelope: 'bare',
  response: groupSchema,
  handler: async (ctx, { params, body }) => groupRecord(await replaceGroupContents(groupPorts(ctx), ctx.user, params.id, body)),
});

export const deleteGroupRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/cloud/groups/{id}/',
  summary: 'Delete a group; its members lose what it granted',
  params: idParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await removeGroup(groupPorts(ctx), ctx.user, params.id);
    return noContent();
  },
});
