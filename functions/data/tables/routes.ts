// Route table of the datatables endpoints (tenant level), item routes on both URL forms.
import type { AnyRoute } from '#shared/http/route.ts';
import { migrationRoutes } from './migrations/migration-routes.ts';
import {
  appTablesRoute,
  createTableRoute,
  datasourceTablesRoute,
  listTablesRoute,
  longItemRoutes,
  shortItemRoutes,
} from './table-routes.ts';

export const tablesRoutes: readonly AnyRoute[] = [
  datasourceTablesRoute,
  listTablesRoute,
  appTablesRoute,
  createTableRoute,
  ...longItemRoutes,
  ...shortItemRoutes,
  ...migrationRoutes('/api/apps/{app_slug}/datasources/{datasource_slug}/datatables/'),
  ...migrationRoutes('/api/apps/{app_slug}/datatables/'),
];
