// Route table of the data service's record endpoints.
import { staleDefinitionOr } from '#shared/db/database-errors.ts';
import type { AnyRoute } from '#shared/http/route.ts';
import {
  createRecordsRoute,
  deleteRecordRoute,
  deleteRecordsRoute,
  getRecordRoute,
  listRecordsRoute,
  patchRecordRoute,
  patchRecordsRoute,
  upsertRecordsRoute,
} from './record-routes.ts';

/**
 * Record statements are built on the table's schema as the request read it; one that waited behind
 * a migration's lock and then meets a renamed or dropped column is a 409 to send again, not a 500.
 */
function answeringStaleDefinitions(route: AnyRoute): AnyRoute {
  return {
    ...route,
    handler: async (ctx, input) => {
      try {
        return await route.handler(ctx, input);
      } catch (error) {
        throw staleDefinitionOr(error);
      }
    },
  };
}

export const recordsRoutes: readonly AnyRoute[] = [
  listRecordsRoute,
  createRecordsRoute,
  upsertRecordsRoute,
  patchRecordsRoute,
  deleteRecordsRoute,
  getRecordRoute,
  patchRecordRoute,
  deleteRecordRoute,
].map(answeringStaleDefinitions);
