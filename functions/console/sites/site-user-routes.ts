// The user↔site relation endpoints, both directions, answering in Envelope B.
import type { ListTotal } from '#shared/db/counted-page.ts';
import { outcome, paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { siteUserSchema, userSiteSchema } from './site-representation.ts';
import {
  siteParams,
  siteUsersBody,
  siteUsersDeleteBody,
  siteUsersQuery,
  userSitesBody,
  userSitesDeleteBody,
  userSitesParams,
  userSitesQuery,
} from './site-schemas.ts';
import {
  assignSiteUsers,
  assignUserSites,
  listSiteUsers,
  listUserSites,
  removeSiteUsers,
  removeUserSites,
  type RelationPorts,
} from './site-user-service.ts';
import type { SiteUserRow, UserSiteRow } from './site-user-repository.ts';

function ports(ctx: RequestContext): RelationPorts {
  return { db: ctx.runtime.db };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'success-flag', access: 'user', envelope: 'B' } as const;

function siteUserItem(row: SiteUserRow) {
  return {
    username: row.username,
    email: row.email,
    name: [row.first_name, row.last_name].filter((part) => part !== '').join(' '),
    permissions: row.permissions,
  };
}

/** A change answers with the resulting assignments and their count beside them. */
function changed<T>(rows: T[], total: ListTotal) {
  // The assignments are read with an exact count (no `_count` on a change), so the value is a number.
  return outcome(rows, { total: total.value ?? rows.length });
}

const USER_SITES_PATH = '/api/cloud/users/{username}/sites/';
const SITE_USERS_PATH = '/api/cloud/sites/{site_slug}/users/';

export const listUserSitesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: USER_SITES_PATH,
  summary: "A user's sites with their permissions",
  message: 'Sites retrieved.',
  response: userSiteSchema,
  params: userSitesParams,
  query: userSitesQuery,
  handler: async (ctx, { params, query }) => {
    const page = await listUserSites(ports(ctx), ctx.user, params.username, query, toPageRequest(query));
    return paged<UserSiteRow>(page.rows, page.total, toPageRequest(query));
  },
});

export const addUserSitesRoute = defineRoute({
  ...common,
  method: 'POST',
  path: USER_SITES_PATH,
  summary: 'Give a user sites (default view_site), keeping the others',
  message: 'Sites assigned.',
  response: () => z.array(userSiteSchema()),
  params: userSitesParams,
  body: userSitesBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignUserSites(ports(ctx), ctx.user, params.username, body, 'add');
    return changed(result.rows, result.total);
  },
});

export const replaceUserSitesRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: USER_SITES_PATH,
  summary: "Replace a user's site assignments atomically (an empty list clears them)",
  message: 'Site assignments replaced.',
  response: () => z.array(userSiteSchema()),
  params: userSitesParams,
  body: userSitesBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignUserSites(ports(ctx), ctx.user, params.username, body, 'replace');
    return changed(result.rows, result.total);
  },
});

export const removeUserSitesRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: USER_SITES_PATH,
  summary: 'Take sites away from a user',
  message: 'Sites removed.',
  response: () => z.array(userSiteSchema()),
  params: userSitesParams,
  body: userSitesDeleteBody,
  handler: async (ctx, { params, body }) => {
    const result = await removeUserSites(ports(ctx), ctx.user, params.username, body.sites);
    return changed(result.rows, result.total);
  },
});

export const listSiteUsersRoute = defineRoute({
  ...common,
  method: 'GET',
  path: SITE_USERS_PATH,
  summary: "A site's users with their permissions",
  message: 'Users retrieved.',
  response: siteUserSchema,
  params: siteParams,
  query: siteUsersQuery,
  handler: async (ctx, { params, query }) => {
    const page = await listSiteUsers(ports(ctx), ctx.user, params.site_slug, query, toPageRequest(query));
    return paged(page.rows.map(siteUserItem), page.total, toPageRequest(query));
  },
});

export const addSiteUsersRoute = defineRoute({
  ...common,
  method: 'POST',
  path: SITE_USERS_PATH,
  summary: 'Give users a site (default view_site), keeping the others',
  message: 'Users assigned.',
  response: () => z.array(siteUserSchema()),
  params: siteParams,
  body: siteUsersBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignSiteUsers(ports(ctx), ctx.user, params.site_slug, body, 'add');
    return changed(result.rows.map(siteUserItem), result.total);
  },
});

export const replaceSiteUsersRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: SITE_USERS_PATH,
  summary: "Replace a site's user assignments atomically (an empty list clears them)",
  message: 'User assignments replaced.',
  response: () => z.array(siteUserSchema()),
  params: siteParams,
  body: siteUsersBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignSiteUsers(ports(ctx), ctx.user, params.site_slug, body, 'replace');
    return changed(result.rows.map(siteUserItem), result.total);
  },
});

export const removeSiteUsersRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: SITE_USERS_PATH,
  summary: 'Take a site away from users',
  message: 'Users removed.',
  response: () => z.array(siteUserSchema()),
  params: siteParams,
  body: siteUsersDeleteBody,
  handler: async (ctx, { params, body }) => {
    const result = await removeSiteUsers(ports(ctx), ctx.user, params.site_slug, body.users);
    return changed(result.rows.map(siteUserItem), result.total);
  },
});
