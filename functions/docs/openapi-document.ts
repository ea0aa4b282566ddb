// The OpenAPI 3.1 document of the whole API, built from the endpoint groups' route tables: each
// route's parameters, query and body come from its zod schemas, its success answer from the declared
// envelope (and `response`, the data inside it), its error answers from its error style, and its
// security from its access rule. Only the docs group imports this module (with zod-to-openapi), and
// only on the first request for the document, so no other Lambda carries the generator.
import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
  zodToOpenAPIRegistry,
} from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { errorSchemas, successSchema } from '#shared/http/envelope-schemas.ts';
import { jsonValue } from '#shared/json/json-value.ts';
import type { AnyRoute, ErrorStyle } from '#shared/http/route.ts';
import { servedPaths } from '#shared/http/route.ts';

/** What the walker reads of a group: its name and the public fields of its routes. */
export interface DescribedGroup {
  name: string;
  routes: readonly AnyRoute[];
}

export const API_TITLE = 'Tessera API';
export const API_VERSION = '1.0.0';

const BEARER_SCHEME = 'bearerAuth';

/** Any JSON value: the data of a route that does not declare its `response`. */
const anyJson = z.unknown().meta({ description: 'Any JSON value (this route does not declare its data shape)' });

/** The object schema under a route's params or query, seen through a transform or pipe. */
function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  if (schema === undefined) return undefined;
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return objectShape(schema.in as z.ZodType);
  return undefined;
}

/** Lists and pages: the answer is a page when the query takes a page number. */
function isPaged(route: AnyRoute): boolean {
  if (route.envelope === 'C') return true;
  const query = objectShape(route.query?.());
  return route.method === 'GET' && query !== undefined && ('page' in query || 'page_size' in query);
}

const PATH_PARAMETER = /\{([A-Za-z_][A-Za-z0-9_]*)(\+?)\}/g;

/** API Gateway's `{key+}` is `{key}` in OpenAPI (the value may then hold slashes). */
export function openApiPath(path: string): string {
  return path.replace(PATH_PARAMETER, '{$1}');
}

/** The path parameters, in the order the path names them, typed by the route's params where it has them. */
function pathParameters(route: AnyRoute, path: string): z.ZodObject | undefined {
  const declared = objectShape(route.params?.()) ?? {};
  const entries = [...path.matchAll(PATH_PARAMETER)].map(([, name, greedy]) => {
    // A path parameter is always required, whatever the generator makes of a coercing schema's input.
    const schema = (declared[name!] ?? z.string()).meta({
      param: { required: true },
      ...(greedy === '+' ? { description: 'The rest of the path; it may hold slashes' } : {}),
    });
    return [name!, schema] as const;
  });
  return entries.length === 0 ? undefined : z.object(Object.fromEntries(entries));
}

/** Accepts any zod object as it is; other query schemas are described by their object part. */
function querySchema(route: AnyRoute): z.ZodObject | undefined {
  const shape = objectShape(route.query?.());
  return shape === undefined ? undefined : z.object(shape);
}

const binary = z.string().meta({ format: 'binary' });

function requestBody(route: AnyRoute): RouteConfig['request'] {
  if (route.streamBody === true) {
    return {
      body: {
        description: 'The file (multipart form data, or the raw bytes where the route takes them)',
        content: {
          'multipart/form-data': { schema: z.object({ file: binary }).catchall(z.unknown()) },
          'application/octet-stream': { schema: binary },
        },
      },
    };
  }
  if (route.body === undefined) return {};
  return { body: { required: true, content: { 'application/json': { schema: route.body() } } } };
}

function errorResponse(description: string, style: ErrorStyle): ResponseConfig {
  return { description, content: { 'application/json': { schema: errorSchemas[style] } } };
}

function successResponse(route: AnyRoute): [string, ResponseConfig] {
  const schema = successSchema(route.envelope, route.response?.() ?? anyJson, isPaged(route));
  if (schema !== undefined) {
    return [String(route.status ?? 200), { description: route.message ?? 'Success', content: { 'application/json': { schema } } }];
  }
  if (route.method === 'DELETE') return ['204', { description: 'Done; no body' }];
  if (route.contentType !== undefined) {
    return [String(route.status ?? 200), { description: route.summary, content: { [route.contentType]: { schema: z.string() } } }];
  }
  return [
    String(route.status ?? 200),
    { description: 'The bytes, or a redirect', content: { 'application/octet-stream': { schema: binary } } },
  ];
}

/** The answers a route may give: its success, and the errors its inputs, access and host allow. */
function responses(route: AnyRoute): Record<string, ResponseConfig> {
  const style = route.errorStyle ?? 'generic';
  const tenant = route.host === 'tenant';
  const guarded = route.access !== 'public' && route.access !== 'optional';
  const [status, success] = successResponse(route);
  const all: Record<string, ResponseConfig> = { [status]: success };
  const hasInput = route.params !== undefined || route.query !== undefined || route.body !== undefined || route.streamBody === true;
  if (hasInput || tenant) all['400'] = errorResponse('The input is not valid', style);
  if (route.access !== 'public') all['401'] = errorResponse('No valid access token', style);
  if (guarded && (tenant || typeof route.access === 'object' || route.access === 'superuser')) {
    all['403'] = errorResponse('The caller may not do this', style);
  }
  if (route.path.includes('{') || tenant) all['404'] = errorResponse('Not found', style);
  if (route.unlimited !== true) all['429'] = errorResponse('Too many requests; see the X-RateLimit-* headers', style);
  return all;
}

function security(route: AnyRoute): RouteConfig['security'] {
  if (route.access === 'public') return [];
  if (route.access === 'optional') return [{}, { [BEARER_SCHEME]: [] }];
  return [{ [BEARER_SCHEME]: [] }];
}

function accessNote(route: AnyRoute): string {
  const { access } = route;
  if (access === 'public') return 'Public.';
  if (access === 'optional') return 'Public; a signed-in caller may see more.';
  if (access === 'user') return 'Any signed-in user.';
  if (access === 'superuser') return 'Superusers only.';
  return `Needs the \`${access.permission}\` permission.`;
}

const hostNotes = {
  platform: 'Served on the platform API host.',
  tenant: "Served on a site's host (or send `X-Tenant: <site-slug>`).",
  any: 'Served on the platform host and on site hosts.',
} as const;

const tenantHeader = z.object({
  'X-Tenant': z.string().optional().meta({ description: 'The site, where the Host header does not name it' }),
});

/** `get_api_cloud_users_username`: unique per method and served path. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(PATH_PARAMETER, '$1')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  return [method.toLowerCase(), ...words].join('_');
}

function describeRoute(group: string, route: AnyRoute, path: string): RouteConfig {
  if (typeof route.summary !== 'string' || route.summary.trim() === '') throw new Error('the route has no summary');
  const params = pathParameters(route, path);
  const query = querySchema(route);
  return {
    method: route.method.toLowerCase() as RouteConfig['method'],
    path: openApiPath(path),
    operationId: operationId(route.method, path),
    summary: route.summary,
    description: `${accessNote(route)} ${hostNotes[route.host]}`,
    tags: [group],
    security: security(route),
    request: {
      ...(params === undefined ? {} : { params }),
      ...(query === undefined ? {} : { query }),
      ...(route.host === 'tenant' ? { headers: tenantHeader } : {}),
      ...requestBody(route),
    },
    responses: responses(route),
  };
}

/**
 * The generator makes a component of a schema (and follows a recursive one) only through the
 * internal id its `.openapi('Name')` sets, which we do not call: that method patches zod's
 * prototypes in every group. The shared schemas are named here instead: the JSON value becomes one
 * self-referring component, each error envelope one component every operation refers to.
 */
function nameSharedSchemas(): void {
  zodToOpenAPIRegistry.add(jsonValue(), { _internal: { refId: 'JsonValue' } });
  for (const schema of Object.values(errorSchemas)) {
    const id = schema.meta()?.id;
    if (typeof id === 'string') zodToOpenAPIRegistry.add(schema, { _internal: { refId: id } });
  }
}

/** The whole document, as a plain JSON-ready object. */
export function buildOpenApiDocument(groups: readonly DescribedGroup[]): Record<string, unknown> {
  nameSharedSchemas();
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from POST /api/auth/jwt/token/ (15 minutes)',
  });
  for (const group of groups) {
    for (const route of group.routes) {
      for (const path of servedPaths(route)) {
        try {
          registry.registerPath(describeRoute(group.name, route, path));
        } catch (error) {
          throw new Error(
            `OpenAPI: ${route.method} ${path} of group ${group.name}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description:
        'The Tessera platform API. Console resources answer on `/api/cloud/...` and `/api/...`; tenant resources on a site host.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The host that served this document' }],
    tags: groups.map((group) => ({ name: group.name, description: `The ${group.name} endpoints` })),
    security: [{ [BEARER_SCHEME]: [] }],
  });
  return document as unknown as Record<string, unknown>;
}
