// The OpenAPI document is built from the route tables: every served path of every group is an
// operation with a summary, a success answer with a schema, the error envelope of its style, and the
// security its access rule says. A route without a summary is refused.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildOpenApiDocument, openApiPath } from '#functions/docs/openapi-document.ts';
import { endpointGroups } from '#functions/groups.ts';
import { defineRoute, servedPaths } from '#shared/http/route.ts';

interface Operation {
  summary?: string;
  operationId: string;
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

type Json = any; // `any`: the document is read as JSON, path by path, as the API gives it.

const document: Json = buildOpenApiDocument(endpointGroups);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const operations: Array<[string, Operation]> = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) => (METHODS.includes(method) ? [[`${method} ${path}`, operation]] : [])),
) as Array<[string, Operation]>;

const served = endpointGroups.flatMap((group) =>
  group.routes.flatMap((route) => servedPaths(route).map((path) => ({ group: group.name, route, path }))),
);

function operationOf(method: string, path: string): Operation {
  return document.paths[openApiPath(path)][method.toLowerCase()];
}

describe('the OpenAPI document of the route tables', () => {
  it('has one operation per served path of every group, the docs group included', () => {
    expect(operations.length).toBe(served.length);
    expect(new Set(served.map((entry) => entry.group))).toContain('docs');
    for (const { route, path } of served) expect(operationOf(route.method, path), `${route.method} ${path}`).toBeDefined();
  });

  it.each(served.map(({ route, path }) => [route.method, path, route] as const))(
    '%s %s has a summary, a success answer with a schema or no body, and unique ids',
    (method, path, route) => {
      const operation = operationOf(method, path);
      expect(route.summary.trim().length).toBeGreaterThan(0);
      expect(operation.summary).toBe(route.summary);
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(successes.length).toBe(1);
      const [status, success] = successes[0]!;
      if (status === '204') expect(success.content).toBeUndefined();
      else {
        const media = Object.values(success.content ?? {});
        expect(media.length).toBeGreaterThan(0);
        for (const entry of media) expect(entry.schema).toBeDefined();
      }
    },
  );

  it('gives every operation a distinct operationId', () => {
    const ids = operations.map(([, operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says which routes are public and which need a bearer token', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    for (const { route, path } of served) {
      const { security } = operationOf(route.method, path);
      if (route.access === 'public') expect(security, path).toEqual([]);
      else if (route.access === 'optional') expect(security, path).toEqual([{}, { bearerAuth: [] }]);
      else expect(security, path).toEqual([{ bearerAuth: [] }]);
    }
    for (const path of ['/api/schema/', '/api/docs/', '/api/redoc/', '/api/health/', '/api/health/ready/', '/api/auth/jwt/token/']) {
      expect(document.paths[path].get ?? document.paths[path].post, path).toMatchObject({ security: [] });
    }
  });

  it('answers errors in the envelope of the route’s error style, and 401 wherever a token is read', () => {
    const components = { generic: 'ErrorEnvelope', 'success-flag': 'SuccessFlagError', data: 'DataError' } as const;
    for (const { route, path } of served) {
      const { responses } = operationOf(route.method, path);
      const reference = `#/components/schemas/${components[route.errorStyle ?? 'generic']}`;
      for (const [status, answer] of Object.entries(responses).filter(([code]) => /^[45]/.test(code))) {
        expect(answer.content!['application/json']!.schema, `${path} ${status}`).toEqual({ $ref: reference });
      }
      expect('401' in responses, path).toBe(route.access !== 'public');
      expect('429' in responses, path).toBe(route.unlimited !== true);
    }
    expect(document.components.schemas.ErrorEnvelope.required).toEqual(['status', 'code', 'message']);
  });

  it('describes parameters, the greedy object key, the site header and JSON bodies from the zod schemas', () => {
    const upload = document.paths['/api/apps/{app_slug}/storage/buckets/{bucket_slug}/objects/{key}'];
    expect(upload).toBeDefined();
    const keyParameter = upload.delete.parameters.find((parameter: Json) => parameter.name === 'key');
    expect(keyParameter).toMatchObject({ in: 'path', required: true });
    expect(upload.delete.parameters.find((parameter: Json) => parameter.name === 'X-Tenant')).toMatchObject({ in: 'header' });
    const login = document.paths['/api/auth/jwt/token/'].post;
    expect(login.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['username', 'password'],
      properties: { username: { type: 'string', maxLength: 150 } },
    });
    expect(document.components.schemas.JsonValue).toBeDefined(); // the recursive JSON value, once
  });

  it('refuses a route without a summary', () => {
    const route = defineRoute({
      method: 'GET',
      path: '/api/nameless/',
      summary: ' ',
      access: 'public',
      host: 'any',
      envelope: 'bare',
      handler: async () => ({}),
    });
    expect(() => buildOpenApiDocument([{ name: 'test', routes: [route] }])).toThrow('has no summary');
  });

  it('reads the schemas a route gives as functions, building each once and only when asked', () => {
    let built = 0;
    const route = defineRoute({
      method: 'POST',
      path: '/api/lazy/{id}/',
      summary: 'A route whose schemas are built on first read',
      access: 'user',
      host: 'platform',
      envelope: 'A',
      params: () => {
        built += 1;
        return z.object({ id: z.coerce.number().int() });
      },
      body: () => z.object({ name: z.string().max(10) }),
      handler: async () => ({}),
    });
    expect(built).toBe(0);
    const built_ = buildOpenApiDocument([{ name: 'test', routes: [route] }]) as Json;
    const operation = built_.paths['/api/lazy/{id}/'].post;
    expect(operation.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(operation.requestBody.content['application/json'].schema.properties.name).toMatchObject({ maxLength: 10 });
    expect(built).toBe(1);
  });
});
