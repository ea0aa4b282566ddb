// Route table of the events group: an app's functions and their invocations, the system events
// and their subscriptions.
import type { AnyRoute } from '#shared/http/route.ts';
import {
  createFunctionRoute,
  deleteFunctionRoute,
  getFunctionRoute,
  listFunctionsRoute,
  listInvocationsRoute,
  patchFunctionRoute,
} from './functions/function-routes.ts';
import { appEventRoute, listEventsRoute, subscribeRoute, unsubscribeRoute } from './subscriptions/subscription-routes.ts';

export const eventsRoutes: readonly AnyRoute[] = [
  listFunctionsRoute,
  createFunctionRoute,
  getFunctionRoute,
  patchFunctionRoute,
  deleteFunctionRoute,
  listInvocationsRoute,
  listEventsRoute,
  subscribeRoute,
  unsubscribeRoute,
  appEventRoute,
];
