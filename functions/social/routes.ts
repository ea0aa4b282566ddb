// Route table of the social group: sign-in provider configuration (social apps).
import type { AnyRoute } from '#shared/http/route.ts';
import { changeSocialAppRoute, createSocialAppRoute, deleteSocialAppRoute, getSocialAppRoute, listSocialAppsRoute } from './social-app-routes.ts';

export const socialRoutes: readonly AnyRoute[] = [
  listSocialAppsRoute,
  createSocialAppRoute,
  getSocialAppRoute,
  changeSocialAppRoute,
  deleteSocialAppRoute,
];
