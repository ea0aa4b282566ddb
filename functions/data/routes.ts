// Route table of the data group: apps, datasources, datatables and records, on tenant hosts.
import type { AnyRoute } from '#shared/http/route.ts';
import { appsRoutes } from './apps/routes.ts';
import { recordsRoutes } from './records/routes.ts';
import { edgeRoutes } from './relations/edge-routes.ts';
import { importReferenceRoute } from './relations/reference-routes.ts';
import { tablesRoutes } from './tables/routes.ts';

export const dataRoutes: readonly AnyRoute[] = [...appsRoutes, ...tablesRoutes, ...recordsRoutes, ...edgeRoutes, importReferenceRoute];
