// Route table of the console's groups endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const groupsRoutes: readonly AnyRoute[] = [];
