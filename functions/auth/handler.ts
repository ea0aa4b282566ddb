// Lambda entry of the auth group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { authRoutes } from './routes.ts';

export const { handler } = createHttpHandler('auth', authRoutes);
