// Route table of the datatables endpoints (tenant level), item routes on both URL forms.
import type { AnyRoute } from '#shared/http/route.ts';
import { createTableRoute, datasourceTablesRoute, listTablesRoute, longItemRoutes, shortItemRoutes } from './table-routes.ts';

export const tablesRoutes: readonly AnyRoute[] = [datasourceTablesRoute, listTablesRoute, createTableRoute, ...longItemRoutes, ...shortItemRoutes];
