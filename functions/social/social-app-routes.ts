// The social app endpoints (`/api/auth/social-apps/`): the platform's providers on the platform
// host, a site's on its host. Parse, find the scope, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { defineRoute } from '#shared/http/route.ts';
import { listSocialApps } from './social-app-repository.ts';
import { socialAppListItem, socialAppListItemSchema, socialAppRecord, socialAppSchema } from './social-app-representation.ts';
import { listSocialAppsQuery, socialAppBody, socialAppParams } from './social-app-schemas.ts';
import { changeSocialApp, createSocialApp, existingSocialApp, removeSocialApp } from './social-app-service.ts';
import { socialScope } from './social-scope.ts';

const common = { host: 'any', errorStyle: 'success-flag' } as const;

export const listSocialAppsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/auth/social-apps/',
  summary: 'Sign-in providers of this host (public)',
  access: 'public',
  query: listSocialAppsQuery,
  envelope: 'B',
  response: socialAppListItemSchema,
  message: 'Social apps retrieved successfully',
  handler: async (ctx, { query }) => {
    const page = await listSocialApps(ctx.runtime.db, await socialScope(ctx), { ...query, page: toPageRequest(query) });
    return paged(page.rows.map(socialAppListItem), page.total, toPageRequest(query));
  },
});

export const createSocialAppRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/auth/social-apps/',
  summary: 'Add a sign-in provider (superuser; on a tenant host also an owner of its organization)',
  access: 'user',
  body: socialAppBody,
  envelope: 'B',
  response: socialAppSchema,
  message: 'Social app created successfully',
  status: 201,
  handler: async (ctx, { body }) => {
    const created = await createSocialApp(ctx.runtime.db, await socialScope(ctx), ctx.user, body);
    return socialAppRecord(created, { echoSecret: body.secret });
  },
});

export const getSocialAppRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/auth/social-apps/{id}/',
  summary: 'A sign-in provider, its secret masked',
  access: 'user',
  params: socialAppParams,
  envelope: 'bare',
  response: socialAppSchema,
  handler: async (ctx, { params }) => socialAppRecord(await existingSocialApp(ctx.runtime.db, await socialScope(ctx), params.id)),
});

export const changeSocialAppRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: '/api/auth/social-apps/{id}/',
  summary: 'Change a sign-in provider; omitted fields keep their values',
  access: 'user',
  params: socialAppParams,
  body: socialAppBody,
  envelope: 'B',
  response: socialAppSchema,
  message: 'Social app updated successfully',
  handler: async (ctx, { params, body }) => {
    const changed = await changeSocialApp(ctx.runtime.db, await socialScope(ctx), ctx.user, params.id, body);
    return socialAppRecord(changed);
  },
});

export const deleteSocialAppRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/auth/social-apps/{id}/',
  summary: 'Delete a sign-in provider no user signs in with',
  access: 'user',
  params: socialAppParams,
  envelope: 'B',
  message: 'Social app deleted successfully',
  handler: async (ctx, { params }) => {
    await removeSocialApp(ctx.runtime.db, await socialScope(ctx), ctx.user, params.id);
    return undefined;
  },
});
