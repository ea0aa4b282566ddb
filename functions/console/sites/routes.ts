// Route table of the console's sites endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const sitesRoutes: readonly AnyRoute[] = [];
