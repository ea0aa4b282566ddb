// The functions endpoints of an app (tenant host, Envelope B): parse, call the service, answer.
import { envelopeB, pageB } from '#shared/http/envelopes.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { reply } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { functionRecord, invocationRecord } from './function-representation.ts';
import { appParams, createFunctionBody, functionParams, listQuery, patchFunctionBody } from './function-schemas.ts';
import { createFunction, functionInvocations, getFunction, listAppFunctions, patchFunction, removeFunction, type FunctionsEnv } from './function-service.ts';

const FUNCTIONS = '/api/apps/{app_slug}/functions/';
const FUNCTION = `${FUNCTIONS}{function_slug}/`;
const common = { host: 'tenant', access: 'user', errorStyle: 'success-flag', envelope: 'B' } as const;

export function functionsEnv(ctx: RequestContext): FunctionsEnv {
  return { db: ctx.runtime.db, site: ctx.site, user: ctx.user, allowPrivateNetworks: ctx.runtime.config.outboundAllowPrivateNetworks };
}

export const listFunctionsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: FUNCTIONS,
  summary: "An app's functions",
  params: appParams,
  query: listQuery,
  handler: async (ctx, { params, query }) => {
    const page = await listAppFunctions(functionsEnv(ctx), params.app_slug, toPageRequest(query));
    return pageB(page.rows.map(functionRecord), page.total, toPageRequest(query), 'Functions retrieved successfully');
  },
});

export const createFunctionRoute = defineRoute({
  ...common,
  method: 'POST',
  path: FUNCTIONS,
  summary: 'Create a webhook function (its signing secret is generated)',
  params: appParams,
  body: createFunctionBody,
  handler: async (ctx, { params, body }) => {
    const fn = await createFunction(functionsEnv(ctx), params.app_slug, body);
    return reply(201, envelopeB(functionRecord(fn), 'Function created successfully', 201));
  },
});

export const getFunctionRoute = defineRoute({
  ...common,
  method: 'GET',
  path: FUNCTION,
  summary: 'One function',
  params: functionParams,
  handler: async (ctx, { params }) =>
    envelopeB(functionRecord(await getFunction(functionsEnv(ctx), params.app_slug, params.function_slug)), 'Function retrieved successfully'),
});

export const patchFunctionRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: FUNCTION,
  summary: "Change a function's name, webhook URL, timeout or activity",
  params: functionParams,
  body: patchFunctionBody,
  handler: async (ctx, { params, body }) =>
    envelopeB(functionRecord(await patchFunction(functionsEnv(ctx), params.app_slug, params.function_slug, body)), 'Function updated successfully'),
});

export const deleteFunctionRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: FUNCTION,
  summary: 'Delete a function with its subscriptions and invocation records',
  params: functionParams,
  handler: async (ctx, { params }) => {
    await removeFunction(functionsEnv(ctx), params.app_slug, params.function_slug);
    return envelopeB({}, 'Function deleted successfully');
  },
});

export const listInvocationsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${FUNCTION}invocations/`,
  summary: "A function's invocations, newest first",
  params: functionParams,
  query: listQuery,
  handler: async (ctx, { params, query }) => {
    const page = await functionInvocations(functionsEnv(ctx), params.app_slug, params.function_slug, toPageRequest(query));
    return pageB(page.rows.map(invocationRecord), page.total, toPageRequest(query), 'Invocations retrieved successfully');
  },
});
