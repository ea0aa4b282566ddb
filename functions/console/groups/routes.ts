// Route table of the console's groups and permissions endpoints.
import type { AnyRoute } from '#shared/http/route.ts';
import { createGroupRoute, deleteGroupRoute, getGroupRoute, listGroupsRoute, replaceGroupRoute } from './group-routes.ts';
import { getPermissionRoute, listPermissionsRoute } from './permission-routes.ts';

export const groupsRoutes: readonly AnyRoute[] = [
  listGroupsRoute,
  createGroupRoute,
  getGroupRoute,
  replaceGroupRoute,
  deleteGroupRoute,
  listPermissionsRoute,
  getPermissionRoute,
];
