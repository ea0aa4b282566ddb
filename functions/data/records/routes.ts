// Route table of the data service's records endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const recordsRoutes: readonly AnyRoute[] = [];
