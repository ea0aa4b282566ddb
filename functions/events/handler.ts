// Lambda entry of the events group.
import { createHttpHandler } from '#shared/http/http-handler.ts';
import { eventsRoutes } from './routes.ts';

export const { handler } = createHttpHandler('events', eventsRoutes);
