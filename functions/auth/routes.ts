// Route table of the auth group: tokens and the signing keys.
import type { AnyRoute } from '#shared/http/route.ts';
import { jwksRoute } from './jwks-route.ts';
import { blacklistTokenRoute, obtainConsoleTokenRoute, obtainTokenRoute, refreshTokenRoute, verifyTokenRoute } from './token-routes.ts';

export const authRoutes: readonly AnyRoute[] = [
  obtainTokenRoute,
  obtainConsoleTokenRoute,
  refreshTokenRoute,
  verifyTokenRoute,
  blacklistTokenRoute,
  jwksRoute,
];
