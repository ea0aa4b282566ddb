// Lambda entry of the storage group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { storageRoutes } from './routes.ts';

export const { handler } = createHttpHandler('storage', storageRoutes);
