// The endpoint groups, one Lambda each: their route tables and where their entries live. The dev
// server, the invoke CLI and the CDK app all read this list, so a new group is added here once.
import type { AnyRoute } from '#shared/http/route.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { authRoutes } from './auth/routes.ts';
import { consoleRoutes } from './console/routes.ts';

export interface EndpointGroup {
  name: string;
  /** Source of the Lambda entry, relative to the repository root; it exports `handler`. */
  entry: string;
  routes: readonly AnyRoute[];
  loadHandler: () => Promise<ApiHandler>;
}

export const endpointGroups: readonly EndpointGroup[] = [
  {
    name: 'auth',
    entry: 'functions/auth/handler.ts',
    routes: authRoutes,
    loadHandler: async () => (await import('./auth/handler.ts')).handler,
  },
  {
    name: 'console',
    entry: 'functions/console/handler.ts',
    routes: consoleRoutes,
    loadHandler: async () => (await import('./console/handler.ts')).handler,
  },
];
