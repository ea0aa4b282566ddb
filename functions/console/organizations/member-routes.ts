// The members endpoints: parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { memberRecord, memberSchema } from './member-representation.ts';
import { addMemberBody, changeMemberBody, listMembersQuery, memberParams } from './member-schemas.ts';
import {
  addMember,
  changeMember,
  getMember,
  listOrganizationMembers,
  removeMember,
  setAdmin,
  type MemberServicePorts,
} from './member-service.ts';
import { organizationParams } from './organization-schemas.ts';

function ports(ctx: RequestContext): MemberServicePorts {
  return { db: ctx.runtime.db };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;
const MEMBERS = '/api/cloud/organizations/{org_slug}/members/';
const MEMBER = `${MEMBERS}{username}/`;

export const listMembersRoute = defineRoute({
  ...common,
  method: 'GET',
  path: MEMBERS,
  summary: 'List the members of an organization',
  params: organizationParams,
  query: listMembersQuery,
  envelope: 'C',
  response: memberSchema,
  handler: async (ctx, { params, query }) => {
    const page = await listOrganizationMembers(ports(ctx), ctx.user, params.org_slug, query);
    return paged(page.rows.map(memberRecord), page.total, toPageRequest(query));
  },
});

export const addMemberRoute = defineRoute({
  ...common,
  method: 'POST',
  path: MEMBERS,
  summary: 'Add a user to an organization, with global groups and site permissions',
  params: organizationParams,
  body: addMemberBody,
  envelope: 'bare',
  response: memberSchema,
  status: 201,
  handler: async (ctx, { params, body }) => memberRecord(await addMember(ports(ctx), ctx.user, params.org_slug, body)),
});

export const getMemberRoute = defineRoute({
  ...common,
  method: 'GET',
  path: MEMBER,
  summary: 'Member detail with groups and site permissions',
  params: memberParams,
  envelope: 'bare',
  response: memberSchema,
  handler: async (ctx, { params }) => memberRecord(await getMember(ports(ctx), ctx.user, params.org_slug, params.username)),
});

export const changeMemberRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: MEMBER,
  summary: "Change a member's admin flag, groups and site permissions (replacing them)",
  params: memberParams,
  body: changeMemberBody,
  envelope: 'bare',
  response: memberSchema,
  handler: async (ctx, { params, body }) => memberRecord(await changeMember(ports(ctx), ctx.user, params.org_slug, params.username, body)),
});

export const removeMemberRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: MEMBER,
  summary: 'Remove a member and their permissions on the organization’s sites',
  params: memberParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await removeMember(ports(ctx), ctx.user, params.org_slug, params.username);
    return noContent();
  },
});

export const makeAdminRoute = defineRoute({
  ...common,
  method: 'POST',
  path: `${MEMBER}make_admin/`,
  summary: 'Make a member an admin of the organization',
  params: memberParams,
  envelope: 'bare',
  response: memberSchema,
  handler: async (ctx, { params }) => memberRecord(await setAdmin(ports(ctx), ctx.user, params.org_slug, params.username, true)),
});

export const removeAdminRoute = defineRoute({
  ...common,
  method: 'POST',
  path: `${MEMBER}remove_admin/`,
  summary: 'Take admin status from a member (refused for the last admin: 422)',
  params: memberParams,
  envelope: 'bare',
  response: memberSchema,
  handler: async (ctx, { params }) => memberRecord(await setAdmin(ports(ctx), ctx.user, params.org_slug, params.username, false)),
});
