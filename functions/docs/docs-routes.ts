// The API's description: the OpenAPI document (JSON, or YAML with `?format=yaml`), and the two
// explorer pages with their files, on the platform host and on every site host, to anyone.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { NotFoundError } from '#shared/errors.ts';
import { defineRoute } from '#shared/http/route.ts';
import { JsonText, reply } from '#shared/http/reply.ts';
import { apiDescriptionJson, apiDescriptionYaml } from './api-description.ts';
import { EXPLORER_CSP, EXPLORER_FILES, explorerFileBytes, REDOC_PAGE, SWAGGER_PAGE } from './explorer-files.ts';

/** The document changes only with a deploy; a short cache keeps it fresh after one. */
const DOCUMENT_CACHE = 'public, max-age=300';
/** The vendor files change only with their package version, which a deploy brings with a new page load. */
const FILE_CACHE = 'public, max-age=3600';

const documentQuery = lazySchema(() => z.object({ format: z.enum(['json', 'yaml']).optional() }));

const openApiDocument = lazySchema(() =>
  z
    .looseObject({
      openapi: z.string(),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: z.record(z.string(), z.unknown()),
    })
    .meta({ description: 'An OpenAPI 3.1 document' }),
);

export const schemaRoute = defineRoute({
  method: 'GET',
  path: '/api/schema/',
  summary: 'The OpenAPI 3.1 document of this API (JSON; YAML with ?format=yaml)',
  access: 'public',
  host: 'any',
  query: documentQuery,
  envelope: 'bare',
  response: openApiDocument,
  handler: async (_ctx, { query }) => {
    if (query.format === 'yaml') {
      return reply(200, Buffer.from(await apiDescriptionYaml()), {
        'Content-Type': 'application/yaml; charset=utf-8',
        'Cache-Control': DOCUMENT_CACHE,
      });
    }
    return reply(200, new JsonText(await apiDescriptionJson()), { 'Cache-Control': DOCUMENT_CACHE });
  },
});

function htmlPage(html: string) {
  return reply(200, Buffer.from(html), {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': EXPLORER_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': DOCUMENT_CACHE,
  });
}

export const swaggerPageRoute = defineRoute({
  method: 'GET',
  path: '/api/docs/',
  summary: 'The interactive API explorer (Swagger UI)',
  access: 'public',
  host: 'any',
  envelope: 'none',
  contentType: 'text/html',
  handler: async () => htmlPage(SWAGGER_PAGE),
});

export const redocPageRoute = defineRoute({
  method: 'GET',
  path: '/api/redoc/',
  summary: 'The API reference (Redoc)',
  access: 'public',
  host: 'any',
  envelope: 'none',
  contentType: 'text/html',
  handler: async () => htmlPage(REDOC_PAGE),
});

const fileParams = lazySchema(() => z.object({ file: z.string().min(1).max(100) }));

function fileRoute(page: 'docs' | 'redoc', summary: string) {
  return defineRoute({
    method: 'GET',
    path: `/api/${page}/{file}`,
    summary,
    access: 'public',
    host: 'any',
    params: fileParams,
    envelope: 'none',
    handler: async (_ctx, { params }) => {
      // An own-property lookup: `__proto__` or `constructor` is no file.
      const file = Object.hasOwn(EXPLORER_FILES[page], params.file) ? EXPLORER_FILES[page][params.file] : undefined;
      if (file === undefined) throw new NotFoundError('No such file.');
      return reply(200, await explorerFileBytes(params.file, file), {
        'Content-Type': file.contentType,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': FILE_CACHE,
      });
    },
  });
}

export const swaggerFileRoute = fileRoute('docs', 'A script or style sheet of the API explorer page');
export const redocFileRoute = fileRoute('redoc', 'A script of the API reference page');
