// The secret types endpoints (tenant level): parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import { secretTypeRecord, secretTypeSchema } from './secret-representation.ts';
import { createSecretTypeBody, listSecretTypesQuery, replaceSecretTypeBody, secretTypeParams } from './secret-schemas.ts';
import { createType, existingType, listTypes, removeType, replaceType } from './secret-type-service.ts';
import { secretsPorts } from './secrets-ports.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user' } as const;

export const listSecretTypesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/secret-types/',
  summary: "List the site's secret types",
  query: listSecretTypesQuery,
  envelope: 'C',
  response: secretTypeSchema,
  handler: async (ctx, { query }) => {
    const page = await listTypes(secretsPorts(ctx), ctx.site, query);
    return paged(page.rows.map(secretTypeRecord), page.total, toPageRequest(query));
  },
});

export const createSecretTypeRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/secret-types/',
  summary: 'Create a secret type with the JSON Schema its values must satisfy',
  body: createSecretTypeBody,
  envelope: 'bare',
  response: secretTypeSchema,
  status: 201,
  handler: async (ctx, { body }) => secretTypeRecord(await createType(secretsPorts(ctx), ctx.site, ctx.user, body)),
});

export const getSecretTypeRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/secret-types/{slug}/',
  summary: 'Secret type detail',
  params: secretTypeParams,
  envelope: 'bare',
  response: secretTypeSchema,
  handler: async (ctx, { params }) => secretTypeRecord(await existingType(secretsPorts(ctx), ctx.site, params.slug)),
});

export const replaceSecretTypeRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/secret-types/{slug}/',
  summary: 'Replace name, description and schema (existing secrets of the type must satisfy it)',
  params: secretTypeParams,
  body: replaceSecretTypeBody,
  envelope: 'bare',
  response: secretTypeSchema,
  handler: async (ctx, { params, body }) => secretTypeRecord(await replaceType(secretsPorts(ctx), ctx.site, ctx.user, params.slug, body)),
});

export const deleteSecretTypeRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/secret-types/{slug}/',
  summary: 'Delete a secret type no secret uses',
  params: secretTypeParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await removeType(secretsPorts(ctx), ctx.site, ctx.user, params.slug);
    return noContent();
  },
});
