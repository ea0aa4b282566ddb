// The typed client of the Tessera API: openapi-fetch over the types openapi-typescript generated
// from the API's OpenAPI document (schema.d.ts; `npm run client:generate` in the repository root).
// Paths, parameters, bodies and answers are checked by the compiler against the document.
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

export type TesseraClient = ReturnType<typeof createClient<paths>>;

/** A client for one host: the platform API's, or a site's (or the platform's with an `X-Tenant` header). */
export function createTesseraClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): TesseraClient {
  return createClient<paths>({ ...options, baseUrl });
}

/** Headers that send an access token (and, where the host does not name the site, the site). */
export function authHeaders(accessToken: string, site?: string): Record<string, string> {
  return { Authorization: `Bearer ${accessToken}`, ...(site === undefined ? {} : { 'X-Tenant': site }) };
}
