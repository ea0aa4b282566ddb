// The events endpoints (spec, Events; Envelope B): the event list, subscribe and unsubscribe on the
// site, and an app's subscribers of one event.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { SYSTEM_EVENTS } from '#shared/events/event-names.ts';
import { outcome } from '#shared/http/answers.ts';
import { defineRoute } from '#shared/http/route.ts';
import { noDataSchema } from '../functions/function-representation.ts';
import { functionsEnv } from '../functions/function-routes.ts';
import { appSubscribers, subscribe, unsubscribe } from './subscription-service.ts';
import type { SubscriberRow } from './subscription-repository.ts';

const common = { host: 'tenant', access: 'user', errorStyle: 'success-flag', envelope: 'B' } as const;
const eventParams = lazySchema(() => z.object({ event_name: z.string().min(1).max(100) }));
const functionBody = lazySchema(() => z.object({ function_id: z.number().int().positive().max(2_147_483_647) }));

/** The wire shape of subscriberRecord, for the OpenAPI document and the test-time response check. */
const subscriberSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      event: z.string(),
      function: z.number().int(),
      function_name: z.string(),
      function_slug: z.string(),
      app_name: z.string(),
      app_slug: z.string(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'EventSubscriber' }),
);

/** An app's subscribers of one event, as appEventRoute answers. */
const appEventSchema = lazySchema(() =>
  z
    .strictObject({
      event: z.string(),
      app: z.strictObject({ id: z.number().int(), name: z.string(), slug: z.string() }),
      total_subscribers: z.number().int(),
      subscribers: z.array(
        z.strictObject({
          subscriber_id: z.number().int(),
          event: z.string(),
          function_id: z.number().int(),
          function_name: z.string(),
          function_slug: z.string(),
          app_id: z.number().int(),
          app_name: z.string(),
          app_slug: z.string(),
          created_at: z.string(),
        }),
      ),
    })
    .meta({ id: 'AppEventSubscribers' }),
);

function subscriberRecord(subscriber: SubscriberRow) {
  return {
    id: subscriber.id,
    event: subscriber.event,
    function: subscriber.functionId,
    function_name: subscriber.functionName,
    function_slug: subscriber.functionSlug,
    app_name: subscriber.appName,
    app_slug: subscriber.appSlug,
    created_at: subscriber.createdAt.toISOString(),
    updated_at: subscriber.updatedAt.toISOString(),
  };
}

export const listEventsRoute = defineRoute({
  ...common,
  host: 'any',
  method: 'GET',
  path: '/api/cloud/events/',
  consoleAlias: true,
  summary: 'The system events functions may subscribe to',
  message: 'Events retrieved successfully',
  response: () => z.strictObject({ events: z.array(z.enum(SYSTEM_EVENTS)) }),
  handler: async () => ({ events: [...SYSTEM_EVENTS] }),
});

export const subscribeRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/events/{event_name}/subscribe/',
  consoleAlias: true,
  summary: 'Subscribe a function of the site to an event (once per function and event)',
  params: eventParams,
  body: functionBody,
  message: 'Subscribed',
  response: subscriberSchema,
  handler: async (ctx, { params, body }) => {
    const subscriber = await subscribe(functionsEnv(ctx), params.event_name, body.function_id);
    return outcome(subscriberRecord(subscriber), { message: `Subscribed to ${subscriber.event}` });
  },
});

export const unsubscribeRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/events/{event_name}/unsubscribe/',
  consoleAlias: true,
  summary: "End a function's subscription to an event",
  params: eventParams,
  body: functionBody,
  message: 'Unsubscribed',
  response: noDataSchema,
  handler: async (ctx, { params, body }) => {
    await unsubscribe(functionsEnv(ctx), params.event_name, body.function_id);
    return outcome({}, { message: `Unsubscribed from ${params.event_name}` });
  },
});

export const appEventRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/apps/{app_slug}/events/{event_name}/',
  summary: "An app's subscribers of one event",
  message: 'Event subscribers retrieved successfully',
  response: appEventSchema,
  params: () => z.object({ app_slug: z.string().min(1).max(100), event_name: z.string().min(1).max(100) }),
  handler: async (ctx, { params }) => {
    const { event, app, subscribers } = await appSubscribers(functionsEnv(ctx), params.app_slug, params.event_name);
    return {
      event,
      app: { id: app.id, name: app.name, slug: app.slug },
      total_subscribers: subscribers.length,
      subscribers: subscribers.map((subscriber) => ({
        subscriber_id: subscriber.id,
        event: subscriber.event,
        function_id: subscriber.functionId,
        function_name: subscriber.functionName,
        function_slug: subscriber.functionSlug,
        app_id: subscriber.appId,
        app_name: subscriber.appName,
        app_slug: subscriber.appSlug,
        created_at: subscriber.createdAt.toISOString(),
      })),
    };
  },
});
