// Route table of the console group.
import type { AnyRoute } from '#shared/http/route.ts';
import {
  createUserRoute,
  deleteUserRoute,
  getUserRoute,
  listUsersRoute,
  patchUserRoute,
  replaceUserRoute,
  restoreUserRoute,
} from './users/user-routes.ts';

export const consoleRoutes: readonly AnyRoute[] = [
  listUsersRoute,
  createUserRoute,
  getUserRoute,
  replaceUserRoute,
  patchUserRoute,
  deleteUserRoute,
  restoreUserRoute,
];
