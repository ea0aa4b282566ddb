// The functions endpoints of an app (tenant host, Envelope B): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { loadSecretsKey } from '#shared/crypto/secrets-key.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { defineRoute } from '#shared/http/route.ts';
import { functionRecord, functionSchema, invocationRecord, invocationSchema, noDataSchema } from './function-representation.ts';
import { appParams, createFunctionBody, functionParams, listQuery, patchFunctionBody } from './function-schemas.ts';
import {
  createFunction,
  functionInvocations,
  getFunction,
  listAppFunctions,
  patchFunction,
  removeFunction,
  type FunctionsEnv,
} from './function-service.ts';

const FUNCTIONS = '/api/apps/{app_slug}/functions/';
const FUNCTION = `${FUNCTIONS}{function_slug}/`;
const common = { host: 'tenant', access: 'user', errorStyle: 'success-flag', envelope: 'B' } as const;

export function functionsEnv(ctx: RequestContext): FunctionsEnv {
  const { config } = ctx.runtime;
  return {
    db: ctx.runtime.db,
    site: ctx.site,
    user: ctx.user,
    allowPrivateNetworks: config.outboundAllowPrivateNetworks,
    secretsKey: () => loadSecretsKey(config),
  };
}

export const listFunctionsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: FUNCTIONS,
  summary: "An app's functions",
  params: appParams,
  query: listQuery,
  message: 'Functions retrieved successfully',
  response: functionSchema,
  handler: async (ctx, { params, query }) => {
    const page = await listAppFunctions(functionsEnv(ctx), params.app_slug, toPageRequest(query));
    return paged(page.rows.map(functionRecord), page.total, toPageRequest(query));
  },
});

export const createFunctionRoute = defineRoute({
  ...common,
  method: 'POST',
  path: FUNCTIONS,
  summary: 'Create a webhook function (its signing secret is generated)',
  params: appParams,
  body: createFunctionBody,
  status: 201,
  message: 'Function created successfully',
  response: functionSchema,
  handler: async (ctx, { params, body }) => functionRecord(await createFunction(functionsEnv(ctx), params.app_slug, body)),
});

export const getFunctionRoute = defineRoute({
  ...common,
  method: 'GET',
  path: FUNCTION,
  summary: 'One function',
  params: functionParams,
  message: 'Function retrieved successfully',
  response: functionSchema,
  handler: async (ctx, { params }) => functionRecord(await getFunction(functionsEnv(ctx), params.app_slug, params.function_slug)),
});

export const patchFunctionRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: FUNCTION,
  summary: "Change a function's name, webhook URL, timeout or activity",
  params: functionParams,
  body: patchFunctionBody,
  message: 'Function updated successfully',
  response: functionSchema,
  handler: async (ctx, { params, body }) =>
    functionRecord(await patchFunction(functionsEnv(ctx), params.app_slug, params.function_slug, body)),
});

export const deleteFunctionRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: FUNCTION,
  summary: 'Delete a function with its subscriptions and invocation records',
  params: functionParams,
  message: 'Function deleted successfully',
  response: noDataSchema,
  handler: async (ctx, { params }) => {
    await removeFunction(functionsEnv(ctx), params.app_slug, params.function_slug);
    return {};
  },
});

export const listInvocationsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${FUNCTION}invocations/`,
  summary: "A function's invocations, newest first",
  params: functionParams,
  query: listQuery,
  message: 'Invocations retrieved successfully',
  response: invocationSchema,
  handler: async (ctx, { params, query }) => {
    const page = await functionInvocations(functionsEnv(ctx), params.app_slug, params.function_slug, toPageRequest(query));
    return paged(page.rows.map(invocationRecord), page.total, toPageRequest(query));
  },
});
