// Route table of the data service's apps endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const appsRoutes: readonly AnyRoute[] = [];
