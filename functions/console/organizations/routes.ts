// Route table of the console's organizations endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const organizationsRoutes: readonly AnyRoute[] = [];
