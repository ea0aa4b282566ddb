// Route table of the secrets group: secret types and secrets (tenant level).
import type { AnyRoute } from '#shared/http/route.ts';
import {
  createSecretRoute,
  deleteSecretRoute,
  getSecretRoute,
  listSecretsRoute,
  replaceSecretRoute,
  secretHistoryRoute,
} from './secret-routes.ts';
import {
  createSecretTypeRoute,
  deleteSecretTypeRoute,
  getSecretTypeRoute,
  listSecretTypesRoute,
  replaceSecretTypeRoute,
} from './secret-type-routes.ts';

export const secretsRoutes: readonly AnyRoute[] = [
  listSecretTypesRoute,
  createSecretTypeRoute,
  getSecretTypeRoute,
  replaceSecretTypeRoute,
  deleteSecretTypeRoute,
  listSecretsRoute,
  createSecretRoute,
  getSecretRoute,
  replaceSecretRoute,
  deleteSecretRoute,
  secretHistoryRoute,
];
