// Route table of the console group: one sub-table per family of endpoints.
import type { AnyRoute } from '#shared/http/route.ts';
import { groupsRoutes } from './groups/routes.ts';
import { organizationsRoutes } from './organizations/routes.ts';
import { profileRoutes } from './profile/routes.ts';
import { sitesRoutes } from './sites/routes.ts';
import {
  createUserRoute,
  deleteUserRoute,
  getUserRoute,
  listUsersRoute,
  patchUserRoute,
  replaceUserRoute,
  restoreUserRoute,
} from './users/user-routes.ts';

const usersRoutes: readonly AnyRoute[] = [
  listUsersRoute,
  createUserRoute,
  getUserRoute,
  replaceUserRoute,
  patchUserRoute,
  deleteUserRoute,
  restoreUserRoute,
];

export const consoleRoutes: readonly AnyRoute[] = [
  ...usersRoutes,
  ...organizationsRoutes,
  ...sitesRoutes,
  ...groupsRoutes,
  ...profileRoutes,
];
