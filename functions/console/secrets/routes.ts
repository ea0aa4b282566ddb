// Route table of the console's secrets endpoints.
import type { AnyRoute } from '#shared/http/route.ts';

export const secretsRoutes: readonly AnyRoute[] = [];
