// The secrets endpoints (tenant level): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { historyRecord, maskedSecretRecord, secretHistorySchema, secretRecord, secretSchema } from './secret-representation.ts';
import { createSecretBody, historyQuery, listSecretsQuery, replaceSecretBody, secretParams, secretScopeQuery } from './secret-schemas.ts';
import { createSecret, historyOf, listMaskedSecrets, readSecret, removeSecret, replaceSecret } from './secret-service.ts';
import { secretsPorts } from './secrets-ports.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user' } as const;

export const listSecretsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/secrets/',
  summary: "List the site's secrets with values masked",
  query: listSecretsQuery,
  envelope: 'C',
  response: secretSchema,
  handler: async (ctx, { query }) => {
    const page = await listMaskedSecrets(secretsPorts(ctx), ctx.site, query);
    return paged(page.rows.map(maskedSecretRecord), page.total, toPageRequest(query));
  },
});

export const createSecretRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/secrets/',
  summary: 'Create a secret (site-level, or for an app by its slug); the value is encrypted at rest',
  body: createSecretBody,
  envelope: 'bare',
  response: secretSchema,
  status: 201,
  handler: async (ctx, { body }) => {
    const { secret, value } = await createSecret(secretsPorts(ctx), ctx.site, ctx.user, body);
    return secretRecord(secret, value);
  },
});

export const getSecretRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/secrets/{key}/',
  summary: "Secret with its value; with ?app= the app's secret, else the site-level one",
  params: secretParams,
  query: secretScopeQuery,
  envelope: 'bare',
  response: secretSchema,
  handler: async (ctx, { params, query }) => {
    const { secret, value } = await readSecret(secretsPorts(ctx), ctx.site, ctx.user, params.key, query.app);
    return secretRecord(secret, value);
  },
});

export const replaceSecretRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/secrets/{key}/',
  summary: 'Set a new value (version + 1); ?app= addresses an app secret',
  params: secretParams,
  query: secretScopeQuery,
  body: replaceSecretBody,
  envelope: 'bare',
  response: secretSchema,
  handler: async (ctx, { params, query, body }) => {
    const { secret, value } = await replaceSecret(secretsPorts(ctx), ctx.site, ctx.user, params.key, query.app, body);
    return secretRecord(secret, value);
  },
});

export const deleteSecretRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/secrets/{key}/',
  summary: 'Delete a secret; its history stays',
  params: secretParams,
  query: secretScopeQuery,
  envelope: 'none',
  handler: async (ctx, { params, query }) => {
    await removeSecret(secretsPorts(ctx), ctx.site, ctx.user, params.key, query.app);
    return noContent();
  },
});

export const secretHistoryRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/secrets/{key}/history/',
  summary: 'Who changed a secret and when (never values), newest first',
  params: secretParams,
  query: historyQuery,
  envelope: 'C',
  response: secretHistorySchema,
  handler: async (ctx, { params, query }) => {
    const page = await historyOf(secretsPorts(ctx), ctx.site, params.key, query);
    return paged(page.rows.map(historyRecord), page.total, toPageRequest(query));
  },
});
