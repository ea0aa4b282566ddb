// Lambda entry of the docs group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { docsRoutes } from './routes.ts';

export const { handler } = createHttpHandler('docs', docsRoutes);
