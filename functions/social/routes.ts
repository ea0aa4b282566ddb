// Route table of the social group: sign-in provider configuration (social apps) and programmatic
// sign-in through those providers.
import type { AnyRoute } from '#shared/http/route.ts';
import { socialRedirectRoute, socialTokenRoute } from './login/login-routes.ts';
import {
  changeSocialAppRoute,
  createSocialAppRoute,
  deleteSocialAppRoute,
  getSocialAppRoute,
  listSocialAppsRoute,
} from './social-app-routes.ts';

export const socialRoutes: readonly AnyRoute[] = [
  listSocialAppsRoute,
  createSocialAppRoute,
  getSocialAppRoute,
  changeSocialAppRoute,
  deleteSocialAppRoute,
  socialRedirectRoute,
  socialTokenRoute,
];
