// The users endpoints: parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { userCreationEvents } from './user-events.ts';
import { userDetailRecord, userDetailSchema, userRecord, userSchema } from './user-representation.ts';
import { createUserBody, listUsersQuery, patchUserBody, replaceUserBody, userParams, type UserChanges } from './user-schemas.ts';
import {
  changeUser,
  createUser,
  deleteUser,
  findVisibleUser,
  listVisibleUsers,
  restoreUser,
  userDetail,
  type UserServicePorts,
} from './user-service.ts';

function ports(ctx: RequestContext): UserServicePorts {
  return { db: ctx.runtime.db, passwordCost: ctx.runtime.config.passwordScryptCost, now: ctx.runtime.now };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic' } as const;

/** PUT and PATCH differ only in which fields are required; the rules are the same. */
async function changeUserHandler(ctx: RequestContext, input: { params: { username: string }; body: UserChanges }) {
  const target = await findVisibleUser(ports(ctx), ctx.user, input.params.username);
  return userRecord(await changeUser(ports(ctx), ctx.user, target, input.body));
}

export const listUsersRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/users/',
  summary: 'List the users the caller may see',
  access: 'user',
  query: listUsersQuery,
  envelope: 'C',
  response: userSchema,
  handler: async (ctx, { query }) => {
    const page = await listVisibleUsers(ports(ctx), ctx.user, query);
    return paged(page.rows.map(userRecord), page.total, toPageRequest(query));
  },
});

export const createUserRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/users/',
  summary: 'Create a user',
  access: { permission: 'add_user' },
  body: createUserBody,
  envelope: 'bare',
  response: userSchema,
  status: 201,
  handler: async (ctx, { body }) => userRecord(await createUser(ports(ctx), ctx.user, body, await userCreationEvents(ctx))),
});

export const getUserRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/users/{username}/',
  summary: 'User detail with organizations and groups',
  access: 'user',
  params: userParams,
  envelope: 'bare',
  response: userDetailSchema,
  handler: async (ctx, { params }) => {
    const user = await findVisibleUser(ports(ctx), ctx.user, params.username);
    return userDetailRecord(await userDetail(ports(ctx), user));
  },
});

export const replaceUserRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/cloud/users/{username}/',
  summary: 'Update a user (username and email required)',
  access: 'user',
  params: userParams,
  body: replaceUserBody,
  envelope: 'bare',
  response: userSchema,
  handler: changeUserHandler,
});

export const patchUserRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: '/api/cloud/users/{username}/',
  summary: 'Partially update a user',
  access: 'user',
  params: userParams,
  body: patchUserBody,
  envelope: 'bare',
  response: userSchema,
  handler: changeUserHandler,
});

export const deleteUserRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/cloud/users/{username}/',
  summary: 'Soft-delete a user: login blocked, memberships removed, data kept',
  access: 'user',
  params: userParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await deleteUser(ports(ctx), ctx.user, params.username);
    return noContent();
  },
});

export const restoreUserRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/users/{username}/restore/',
  summary: 'Restore a soft-deleted user (superusers only)',
  access: 'superuser',
  params: userParams,
  envelope: 'bare',
  response: userSchema,
  handler: async (ctx, { params }) => userRecord(await restoreUser(ports(ctx), params.username)),
});
