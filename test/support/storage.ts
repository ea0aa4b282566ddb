// Test set-up for the storage endpoints: a site with an app and buckets made through the API, a
// client that sends and receives raw bytes (uploads, downloads, ranges), and multipart bodies.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';
import { createSite } from './sites.ts';
import { USER_PASSWORD, type TestApp } from './test-app.ts';

export interface BinaryResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The body parsed as JSON when it is JSON, else undefined. */
  json: any; // `any`: test bodies are read field by field
}

export interface BinaryRequest {
  token?: string;
  headers?: Record<string, string>;
  body?: Buffer | string | Readable;
}

/** One HTTP request with a raw body and a raw path; the answer's bytes as they came. */
export function sendBinary(baseUrl: string, method: string, path: string, options: BinaryRequest = {}): Promise<BinaryResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const body = options.body;
  if ((Buffer.isBuffer(body) || typeof body === 'string') && headers['content-length'] === undefined) {
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  // The path goes out exactly as given: a URL would resolve `..` and `%2e%2e` segments first.
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path, method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const bytes = Buffer.concat(chunks);
        const isJson = (responseHeaders.get('content-type') ?? '').includes('json') && bytes.length > 0;
        resolve({
          status: incoming.statusCode ?? 0,
          headers: responseHeaders,
          bytes,
          json: isJson ? JSON.parse(bytes.toString('utf8')) : undefined,
        });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    if (body === undefined || Buffer.isBuffer(body) || typeof body === 'string') outgoing.end(body);
    else body.pipe(outgoing);
  });
}

/** Who sends to a storage site; read at each request, since tests fill it in `beforeAll`. */
export interface SiteCaller {
  app: TestApp;
  site: StorageSite;
  token: string | undefined;
}

/** `sendBinary` to the site's host as the caller; a request's own headers and token win. */
export function siteSender(caller: () => SiteCaller) {
  return (method: string, route: string, options: BinaryRequest = {}): Promise<BinaryResponse> => {
    const { app, site, token } = caller();
    return sendBinary(app.url, method, route, { token, ...options, headers: { ...site.tenant, ...options.headers } });
  };
}

export interface MultipartPart {
  name: string;
  /** Present for file parts. */
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body and its Content-Type header. */
export function multipart(parts: readonly MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----tessera${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface StorageSite {
  slug: string;
  organization: string;
  tenant: Record<string, string>;
  app: string;
  /** `/api/apps/<app>/storage/buckets/` */
  buckets: string;
}

/** A site with one app, addressed by X-Tenant. */
export async function createStorageSite(app: TestApp, token: string, name: string): Promise<StorageSite> {
  const site = await createSite(app, token, name);
  const created = await app.request('POST', '/api/apps/', { token, headers: site.headers, body: { name: `${name} App` } });
  if (created.status !== 201) throw new Error(`app: ${created.status} ${JSON.stringify(created.body)}`);
  return {
    slug: site.slug,
    organization: site.organization,
    tenant: site.headers,
    app: created.body.slug,
    buckets: `/api/apps/${created.body.slug}/storage/buckets/`,
  };
}

/**
 * A new user who joins the site's organization and gets `permissions` on the site (none: a user
 * of the platform without access to the site); answers their access token.
 */
export async function siteUser(
  app: TestApp,
  adminToken: string,
  site: StorageSite,
  username: string,
  permissions: string[],
): Promise<string> {
  await app.createUser(username);
  if (permissions.length > 0) {
    const member = await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, {
      token: adminToken,
      body: { user_slug: username },
    });
    if (member.status !== 201) throw new Error(`member: ${member.status} ${JSON.stringify(member.body)}`);
    const granted = await app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
      token: adminToken,
      body: { users: [{ username, permissions }] },
    });
    if (granted.status >= 300) throw new Error(`site permissions: ${granted.status} ${JSON.stringify(granted.body)}`);
  }
  return (await app.login(username, USER_PASSWORD)).access;
}

/** Creates a bucket and answers the path of its objects (`.../buckets/<slug>/objects/`). */
export async function createBucket(app: TestApp, token: string, site: StorageSite, body: Record<string, unknown>): Promise<string> {
  const created = await app.request('POST', site.buckets, { token, headers: site.tenant, body: { app_category: 'attachments', ...body } });
  if (created.status !== 201) throw new Error(`bucket: ${created.status} ${JSON.stringify(created.body)}`);
  return `${site.buckets}${created.body.slug}/objects/`;
}

/** The folder the test app's filesystem object store writes to (these tests run on that adapter). */
export function objectsRoot(app: TestApp): string {
  const store = app.runtime.config.objectStore;
  if (store.backend !== 'filesystem') throw new Error(`the test app stores objects in ${store.backend}, not on disk`);
  return store.root;
}

/** Every file under the filesystem store's root, temporary uploads included: what a refusal must not leave. */
export async function storedFileCount(app: TestApp): Promise<number> {
  const entries = await readdir(objectsRoot(app), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}
