// Lambda entry of the roles group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { rolesRoutes } from './routes.ts';

export const { handler } = createHttpHandler('roles', rolesRoutes);
