// Route table of the console's profile endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const profileRoutes: readonly AnyRoute[] = [];
