// Route table of the apps and datasources endpoints (tenant level).
import type { AnyRoute } from '#shared/http/route.ts';
import {
  appStatsRoute,
  createAppRoute,
  deleteAppRoute,
  getAppRoute,
  listAppsRoute,
  patchAppRoute,
  replaceAppRoute,
  restoreAppRoute,
} from './app-routes.ts';
import {
  createDatasourceRoute,
  datasourceStatsRoute,
  deleteDatasourceRoute,
  getDatasourceRoute,
  listDatasourcesRoute,
  patchDatasourceRoute,
  replaceDatasourceRoute,
} from './datasource-routes.ts';

export const appsRoutes: readonly AnyRoute[] = [
  listAppsRoute,
  createAppRoute,
  getAppRoute,
  replaceAppRoute,
  patchAppRoute,
  deleteAppRoute,
  restoreAppRoute,
  appStatsRoute,
  listDatasourcesRoute,
  createDatasourceRoute,
  getDatasourceRoute,
  replaceDatasourceRoute,
  patchDatasourceRoute,
  deleteDatasourceRoute,
  datasourceStatsRoute,
];
