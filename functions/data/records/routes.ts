// Route table of the data service's record endpoints.
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

export const recordsRoutes: readonly AnyRoute[] = [
  listRecordsRoute,
  createRecordsRoute,
  upsertRecordsRoute,
  patchRecordsRoute,
  deleteRecordsRoute,
  getRecordRoute,
  patchRecordRoute,
  deleteRecordRoute,
];
