// Route table of the roles group: app roles, site roles and role memberships, on tenant hosts.
import type { AnyRoute } from '#shared/http/route.ts';
import { changeAppRoleRoute, createAppRoleRoute, deleteAppRoleRoute, getAppRoleRoute, listAppRolesRoute } from './app-role-routes.ts';
import {
  addRoleUsersRoute,
  assignRolesRoute,
  expireRoleUsersRoute,
  listRoleUsersRoute,
  listUserRolesRoute,
  removeRoleUsersRoute,
  replaceRoleUsersRoute,
  revokeRolesRoute,
} from './membership-routes.ts';
import { changeSiteRoleRoute, createSiteRoleRoute, deleteSiteRoleRoute, getSiteRoleRoute, listSiteRolesRoute } from './site-role-routes.ts';

export const rolesRoutes: readonly AnyRoute[] = [
  listAppRolesRoute,
  createAppRoleRoute,
  getAppRoleRoute,
  changeAppRoleRoute,
  deleteAppRoleRoute,
  listSiteRolesRoute,
  createSiteRoleRoute,
  getSiteRoleRoute,
  changeSiteRoleRoute,
  deleteSiteRoleRoute,
  assignRolesRoute,
  revokeRolesRoute,
  listRoleUsersRoute,
  addRoleUsersRoute,
  replaceRoleUsersRoute,
  expireRoleUsersRoute,
  removeRoleUsersRoute,
  listUserRolesRoute,
];
