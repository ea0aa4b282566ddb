// Route table of the hosting group: frontend workers and their builds, on tenant hosts.
import type { AnyRoute } from '#shared/http/route.ts';
import { activateBuildRoute, listBuildsRoute, uploadBuildRoute } from './workers/build-routes.ts';
import {
  availabilityRoute,
  createWorkerRoute,
  deleteWorkerRoute,
  getWorkerRoute,
  listWorkersRoute,
  patchWorkerRoute,
} from './workers/worker-routes.ts';

export const hostingRoutes: readonly AnyRoute[] = [
  listWorkersRoute,
  createWorkerRoute,
  availabilityRoute,
  getWorkerRoute,
  patchWorkerRoute,
  deleteWorkerRoute,
  listBuildsRoute,
  uploadBuildRoute,
  activateBuildRoute,
];
