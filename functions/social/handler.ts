// Lambda entry of the social group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { socialRoutes } from './routes.ts';

export const { handler } = createHttpHandler('social', socialRoutes);
