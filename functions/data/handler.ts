// Lambda entry of the data group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { dataRoutes } from './routes.ts';

export const { handler } = createHttpHandler('data', dataRoutes);
