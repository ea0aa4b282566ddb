// Route table of the data service's tables endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const tablesRoutes: readonly AnyRoute[] = [];
