// The user↔site relation endpoints, both directions, answering in Envelope B.
import { envelopeB, pageB } from '#shared/http/envelopes.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { defineRoute } from '#shared/http/route.ts';
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

/** A change answers with the resulting assignments. */
function changed<T>(rows: T[], total: number, message: string) {
  return { ...envelopeB(rows, message), total };
}

const USER_SITES_PATH = '/api/cloud/users/{username}/sites/';
const SITE_USERS_PATH = '/api/cloud/sites/{site_slug}/users/';

export const listUserSitesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: USER_SITES_PATH,
  summary: "A user's sites with their permissions",
  params: userSitesParams,
  query: userSitesQuery,
  handler: async (ctx, { params, query }) => {
    const page = await listUserSites(ports(ctx), ctx.user, params.username, query, toPageRequest(query));
    return pageB<UserSiteRow>(page.rows, page.total, toPageRequest(query), 'Sites retrieved.');
  },
});

export const addUserSitesRoute = defineRoute({
  ...common,
  method: 'POST',
  path: USER_SITES_PATH,
  summary: 'Give a user sites (default view_site), keeping the others',
  params: userSitesParams,
  body: userSitesBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignUserSites(ports(ctx), ctx.user, params.username, body, 'add');
    return changed(result.rows, result.total, 'Sites assigned.');
  },
});

export const replaceUserSitesRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: USER_SITES_PATH,
  summary: "Replace a user's site assignments atomically (an empty list clears them)",
  params: userSitesParams,
  body: userSitesBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignUserSites(ports(ctx), ctx.user, params.username, body, 'replace');
    return changed(result.rows, result.total, 'Site assignments replaced.');
  },
});

export const removeUserSitesRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: USER_SITES_PATH,
  summary: 'Take sites away from a user',
  params: userSitesParams,
  body: userSitesDeleteBody,
  handler: async (ctx, { params, body }) => {
    const result = await removeUserSites(ports(ctx), ctx.user, params.username, body.sites);
    return changed(result.rows, result.total, 'Sites removed.');
  },
});

export const listSiteUsersRoute = defineRoute({
  ...common,
  method: 'GET',
  path: SITE_USERS_PATH,
  summary: "A site's users with their permissions",
  params: siteParams,
  query: siteUsersQuery,
  handler: async (ctx, { params, query }) => {
    const page = await listSiteUsers(ports(ctx), ctx.user, params.site_slug, query, toPageRequest(query));
    return pageB(page.rows.map(siteUserItem), page.total, toPageRequest(query), 'Users retrieved.');
  },
});

export const addSiteUsersRoute = defineRoute({
  ...common,
  method: 'POST',
  path: SITE_USERS_PATH,
  summary: 'Give users a site (default view_site), keeping the others',
  params: siteParams,
  body: siteUsersBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignSiteUsers(ports(ctx), ctx.user, params.site_slug, body, 'add');
    return changed(result.rows.map(siteUserItem), result.total, 'Users assigned.');
  },
});

export const replaceSiteUsersRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: SITE_USERS_PATH,
  summary: "Replace a site's user assignments atomically (an empty list clears them)",
  params: siteParams,
  body: siteUsersBody,
  handler: async (ctx, { params, body }) => {
    const result = await assignSiteUsers(ports(ctx), ctx.user, params.site_slug, body, 'replace');
    return changed(result.rows.map(siteUserItem), result.total, 'User assignments replaced.');
  },
});

export const removeSiteUsersRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: SITE_USERS_PATH,
  summary: 'Take a site away from users',
  params: siteParams,
  body: siteUsersDeleteBody,
  handler: async (ctx, { params, body }) => {
    const result = await removeSiteUsers(ports(ctx), ctx.user, params.site_slug, body.users);
    return changed(result.rows.map(siteUserItem), result.total, 'Users removed.');
  },
});
