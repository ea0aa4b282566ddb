// The role membership endpoints (tenant hosts): bulk assign and revoke, the users of a role, the
// roles of a user. Parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import {
  changeRoleUsers,
  roleUsers,
  userRoles,
  assignRoles,
  revokeRoles,
  type BulkOutcome,
  type RoleUsersChange,
} from './membership-service.ts';
import { bulkRolesAnswerSchema, isoOf, roleMessageSchema, roleUserSchema, userRoleSchema } from './role-representation.ts';
import {
  assignRolesBody,
  expireRoleUsersBody,
  replaceRoleUsersBody,
  revokeRolesBody,
  roleUsersBody,
  roleUsersParams,
  roleUsersQuery,
  userRolesParams,
  userRolesQuery,
} from './role-schemas.ts';

const common = { host: 'tenant', access: 'user', errorStyle: 'generic' } as const;

/** 200 `{message}` when every pair was done; with failures 200 (some done) or 400 (none) `{status, message, data}`. */
function bulkAnswer(outcome: BulkOutcome, verb: string) {
  if (outcome.failures.length === 0) return { message: `Roles ${verb} successfully.` };
  const none = outcome.succeeded === 0;
  return reply(none ? 400 : 200, {
    status: none ? 'error' : 'partial_success',
    message: none ? `No roles were ${verb}.` : `Roles ${verb} with ${outcome.failures.length} failure(s).`,
    data: { failures: outcome.failures },
  });
}

export const assignRolesRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/assign/roles',
  summary: 'Assign 1-100 roles to 1-100 users (existing assignments count as done)',
  body: assignRolesBody,
  response: bulkRolesAnswerSchema,
  envelope: 'bare',
  handler: async (ctx, { body }) => bulkAnswer(await assignRoles(ctx.runtime.db, ctx.site, ctx.user, body), 'assigned'),
});

export const revokeRolesRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/revoke/roles',
  summary: 'Revoke 1-100 roles from 1-100 users (missing assignments count as done)',
  body: revokeRolesBody,
  response: bulkRolesAnswerSchema,
  envelope: 'bare',
  handler: async (ctx, { body }) => bulkAnswer(await revokeRoles(ctx.runtime.db, ctx.site, ctx.user, body), 'revoked'),
});

export const listRoleUsersRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/roles/{role_slug}/users',
  summary: 'Users holding a role (app or site role); expired memberships only with include_expired',
  params: roleUsersParams,
  query: roleUsersQuery,
  envelope: 'A',
  message: 'Role users retrieved successfully',
  response: roleUserSchema,
  handler: async (ctx, { params, query }) => {
    const page = await roleUsers(ctx.runtime.db, ctx.site, ctx.user, params.role_slug, {
      ...query,
      includeExpired: query.include_expired,
      page: toPageRequest(query),
    });
    const items = page.rows.map((row) => ({
      username: row.username,
      email: row.email,
      first_name: row.first_name,
      last_name: row.last_name,
      expires_at: isoOf(row.expires_at),
    }));
    return paged(items, page.total, toPageRequest(query));
  },
});

function roleUsersRoute(
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  summary: string,
  toChange: (body: never) => RoleUsersChange,
  body: unknown,
) {
  return defineRoute({
    ...common,
    method,
    path: '/api/roles/{role_slug}/users',
    summary,
    params: roleUsersParams,
    body: () => body as ReturnType<typeof roleUsersBody>,
    response: roleMessageSchema,
    envelope: 'bare',
    handler: async (ctx, input) => {
      const change = toChange(input.body as never);
      const outcome = await changeRoleUsers(ctx.runtime.db, ctx.site, ctx.user, input.params.role_slug, change);
      return { message: `Role users updated (${change.action}).`, detail: `${outcome.changed} changed, ${outcome.skipped} skipped.` };
    },
  });
}

export const addRoleUsersRoute = roleUsersRoute(
  'POST',
  'Give the role to users (those who hold it already are skipped)',
  (body: { usernames: string[] }) => ({ action: 'add', usernames: body.usernames }),
  roleUsersBody(),
);
export const replaceRoleUsersRoute = roleUsersRoute(
  'PUT',
  'Make exactly these users hold the role',
  (body: { usernames: string[] }) => ({ action: 'replace', usernames: body.usernames }),
  replaceRoleUsersBody(),
);
export const expireRoleUsersRoute = roleUsersRoute(
  'PATCH',
  'Set when these users stop holding the role (a future datetime, or null for never)',
  (body: { usernames: string[]; expires_at: Date | null }) => ({ action: 'expire', usernames: body.usernames, expiresAt: body.expires_at }),
  expireRoleUsersBody(),
);
export const removeRoleUsersRoute = roleUsersRoute(
  'DELETE',
  'Take the role from users (those who do not hold it are skipped)',
  (body: { usernames: string[] }) => ({ action: 'remove', usernames: body.usernames }),
  roleUsersBody(),
);

export const listUserRolesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/users/{username}/roles',
  summary: "A user's roles (`me`: the caller's); expired memberships only with include_expired",
  // A user who holds roles here but no site permission still reads their own.
  roleHoldersReach: true,
  params: userRolesParams,
  query: userRolesQuery,
  envelope: 'A',
  message: 'User roles retrieved successfully',
  response: userRoleSchema,
  handler: async (ctx, { params, query }) => {
    const page = await userRoles(ctx.runtime.db, ctx.site, ctx.user, params.username, {
      app: query.app,
      search: query.search,
      membershipType: query.membership_type,
      includeExpired: query.include_expired,
      ordering: query.ordering,
      page: toPageRequest(query),
    });
    const now = Date.now();
    const items = page.rows.map((row) => ({
      membership_type: row.membership_type,
      role: { id: row.role_id, name: row.role_name, slug: row.role_slug },
      app_slug: row.app_slug,
      expires_at: isoOf(row.expires_at),
      is_expired: row.expires_at !== null && new Date(row.expires_at).getTime() <= now,
      assigned_by: row.assigned_by,
      created_at: isoOf(row.created_at),
    }));
    return paged(items, page.total, toPageRequest(query));
  },
});
