// Route table of the console's profile endpoints.
import type { AnyRoute } from '#shared/http/route.ts';
import { changePasswordRoute, getProfileRoute, updateProfileRoute } from './profile-routes.ts';

export const profileRoutes: readonly AnyRoute[] = [getProfileRoute, updateProfileRoute, changePasswordRoute];
