// Lambda entry of the hosting group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { hostingRoutes } from './routes.ts';

export const { handler } = createHttpHandler('hosting', hostingRoutes);
