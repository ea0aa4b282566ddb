// Subscribing functions to system events and listing an app's subscribers of one. Subscribing and
// unsubscribing change what a function does, so they need what changing it needs (function-access.ts).
import { DuplicateEntryError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { SYSTEM_EVENTS, isSystemEvent } from '#shared/events/event-names.ts';
import { assertManagesFunctions } from '../functions/function-access.ts';
import { findApp, findFunctionById } from '../functions/function-repository.ts';
import type { FunctionsEnv } from '../functions/function-service.ts';
import { deleteSubscriber, insertSubscriber, subscribersOf, type SubscriberRow } from './subscription-repository.ts';

function eventOf(name: string): string {
  if (!isSystemEvent(name)) throw new NotFoundError(`Unknown event "${name.slice(0, 100)}"; events are ${SYSTEM_EVENTS.join(', ')}.`);
  return name;
}

async function assertFunction(env: FunctionsEnv, functionId: number): Promise<void> {
  if ((await findFunctionById(env.db, env.site, functionId)) === undefined)
    throw ValidationError.forFields({ function_id: ['No function with this id on the site.'] });
}

export async function subscribe(env: FunctionsEnv, eventName: string, functionId: number): Promise<SubscriberRow> {
  await assertManagesFunctions(env);
  const event = eventOf(eventName);
  await assertFunction(env, functionId);
  const subscriber = await insertSubscriber(env.db, env.site, event, functionId);
  if (subscriber === undefined) throw new DuplicateEntryError(`The function already subscribes to ${event}.`);
  return subscriber;
}

export async function unsubscribe(env: FunctionsEnv, eventName: string, functionId: number): Promise<void> {
  await assertManagesFunctions(env);
  const event = eventOf(eventName);
  if (!(await deleteSubscriber(env.db, env.site, event, functionId)))
    throw new NotFoundError(`The function does not subscribe to ${event}.`);
}

export async function appSubscribers(env: FunctionsEnv, appSlug: string, eventName: string) {
  const event = eventOf(eventName);
  const app = await findApp(env.db, env.site, appSlug);
  if (app === undefined) throw new NotFoundError('App not found.');
  return { event, app, subscribers: await subscribersOf(env.db, env.site, event, app.id) };
}
