// The whole platform for a test file: a database of its own, the local boot (migrations, superuser)
// and the dev server on a free port, with a small HTTP client that speaks to it like a user would.
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig } from '#shared/config.ts';
import type { Runtime } from '#shared/runtime/runtime.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import { bootLocal } from '#infra/local/boot.ts';
import { startDevServer, type DevServer } from '#infra/local/dev-server.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-123', email: 'admin@example.com' };

export type AnyBody = any; // `any`: test bodies are read field by field

export interface ApiResponse<T = AnyBody> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  runtime: Runtime;
  database: TestDatabase;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Signs in and returns the access and refresh tokens; fails the test on a non-200. */
  login(username: string, password: string): Promise<{ access: string; refresh: string }>;
  /** An access token of a user made with `createUser` (whose password is USER_PASSWORD). */
  tokenOf(username: string): Promise<string>;
  /** Creates a user through the API as the superuser and returns its record. */
  createUser(username: string, extra?: Record<string, unknown>): Promise<{ id: number; uuid: string; username: string }>;
  /** Grants a permission directly (test set-up; groups and permissions have their own issue). */
  grant(username: string, ...codenames: string[]): Promise<void>;
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

export const USER_PASSWORD = 'user-password-123';

/** The test app's PUBLIC_API_URL: a site's links start with `http://<slug>.api.example.test`. */
export const PUBLIC_API_URL_TEMPLATE = 'http://{site}.api.example.test';

export function sitePublicUrl(siteSlug: string): string {
  return PUBLIC_API_URL_TEMPLATE.replace('{site}', siteSlug);
}

/** Rate limits no test file reaches: on, as by default, so the whole suite runs through them. */
export const GENEROUS_RATE_LIMITS = {
  RATE_LIMIT_CONSOLE_PER_MINUTE: '1000000',
  RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '1000000',
  RATE_LIMIT_LOGIN_PER_HOUR: '1000000',
  RATE_LIMIT_AUTHENTICATED_PER_HOUR: '1000000',
  RATE_LIMIT_ANONYMOUS_PER_HOUR: '1000000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
} as const;

interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

function sendHttp(url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<RawResponse> {
  // node:http sends a DELETE body only with an explicit length.
  const withLength = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers: withLength }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: incoming.statusCode ?? 0, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export interface TestAppOptions {
  /** A database the caller made (for example reached through a proxy); a fresh one by default. */
  database?: TestDatabase;
  /** An object store the caller made (for example one whose disk fills up); the configured one by default. */
  objectStore?: ObjectStore;
  /** The runtime's clock (a `FakeClock`'s `now` for rules that depend on time); the system clock if unset. */
  now?: () => Date;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    PASSWORD_SCRYPT_COST: '1024',
    LOG_LEVEL: 'SILENT',
    REQUEST_LOG: 'false',
    CORS_ORIGINS: 'http://app.example.test',
    // Links in answers come from here, never from the Host a test sends.
    PUBLIC_API_URL: PUBLIC_API_URL_TEMPLATE,
    // Limits stay on (every request is counted and gets the headers) but far above what a test file
    // sends; the rate-limit tests pass their own numbers.
    ...GENEROUS_RATE_LIMITS,
    ...env,
  });
  const { runtime } = await bootLocal(config, { db: database.db, objectStore: options.objectStore, now: options.now });
  const server: DevServer = await startDevServer(0);

  const request = async (method: string, route: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    // node:http rather than fetch: fetch drops a Host header, and tenant tests need to send one.
    const response = await sendHttp(`${server.url}${route}`, method, headers, body);
    const text = response.body;
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed };
  };

  const login = async (username: string, password: string) => {
    const answer = await request('POST', '/api/auth/jwt/token/', { body: { username, password } });
    if (answer.status !== 200) throw new Error(`login of ${username} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as { access: string; refresh: string };
  };

  let cachedAdminToken: string | undefined;
  const adminToken = async () => (cachedAdminToken ??= (await login(ADMIN.username, ADMIN.password)).access);

  return {
    url: server.url,
    runtime,
    database,
    request,
    login,
    tokenOf: async (username) => (await login(username, USER_PASSWORD)).access,
    adminToken,
    createUser: async (username, extra = {}) => {
      const answer = await request('POST', '/api/cloud/users/', {
        token: await adminToken(),
        body: { username, email: `${username}@example.com`, password: USER_PASSWORD, ...extra },
      });
      if (answer.status !== 201) throw new Error(`creating ${username} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    grant: async (username, ...codenames) => {
      await runtime.db.run(sql`
        insert into platform.user_permissions (user_id, permission_id)
        select u.id, p.id from platform.users u, platform.permissions p
        where u.username = ${username} and p.codename in ${codenames}
        on conflict do nothing`);
    },
    close: async () => {
      await server.close();
      await database.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
