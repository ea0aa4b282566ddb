// Lambda entry of the console group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { consoleRoutes } from './routes.ts';

export const { handler } = createHttpHandler('console', consoleRoutes);
