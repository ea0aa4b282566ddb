// Runs built Lambda bundles as the Lambda runtime does: a fresh plain `node` process imports
// index.mjs and calls `handler` with API Gateway events (./bundle-invoke.mjs). The signing key comes
// from a stand-in Secrets Manager on loopback, so the bundle loads and uses the SDK client as it
// does when deployed. Shared by the bundle tests and the bundles benchmark.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { JWK } from 'jose';
import type { EndpointGroup } from '#functions/groups.ts';
import { gatewayEvent } from '#infra/local/gateway-event.ts';
import { seedPasswordWords } from '#shared/auth/seed-password-words.ts';
import { ensureSuperuser } from '#shared/bootstrap/ensure-superuser.ts';
import type { Config } from '#shared/config.ts';
import type { Database } from '#shared/db/database.ts';
import { prepareDatabase } from '#shared/db/open-database.ts';

const run = promisify(execFile);
const INVOKER = fileURLToPath(new URL('./bundle-invoke.mjs', import.meta.url));

/** Where bundles under test are written: inside the repository, so the externals (PGlite) resolve. */
export const BUNDLE_SCRATCH_ROOT = fileURLToPath(new URL('../../node_modules/.cache/tessera-bundles/', import.meta.url));

export const SIGNING_KEY_SECRET_ID = 'tessera/bundles/signing-key';
/** The secrets key's entry in the stand-in: what sealed values are encrypted with. */
export const SECRETS_KEY_SECRET_ID = 'tessera/bundles/secrets-key';

/** What the stand-in holds for the bundles: the signing key `jwk` and a fresh 32-byte secrets key. */
export function bundleSecrets(jwk: JWK): Map<string, string> {
  return new Map([
    [SIGNING_KEY_SECRET_ID, JSON.stringify(jwk)],
    [SECRETS_KEY_SECRET_ID, randomBytes(32).toString('base64')],
  ]);
}

export interface SecretsStandIn {
  url: string;
  /** `GetSecretValue` calls received, by secret id. */
  reads: string[];
  close(): Promise<void>;
}

/** Answers `GetSecretValue` (awsJson1.1) for the secrets given; anything else is a 400. */
export async function startSecretsStandIn(secrets: ReadonlyMap<string, string>): Promise<SecretsStandIn> {
  const reads: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target']).split('.')[1];
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: string };
      const value = input.SecretId === undefined ? undefined : secrets.get(input.SecretId);
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (operation !== 'GetSecretValue' || value === undefined) {
        response.statusCode = 400;
        response.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: `no secret ${input.SecretId}` }));
        return;
      }
      reads.push(input.SecretId!);
      response.end(JSON.stringify({ ARN: input.SecretId, Name: input.SecretId, SecretString: value }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface BundleDatabase {
  /** PostgreSQL; without it the bundle opens PGlite under `dataDir`. */
  url?: string;
  dataDir: string;
}

/** The environment of a deployed function, pointed at loopback stand-ins and the given database. */
export function lambdaEnvironment(secretsUrl: string, database: BundleDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_LAMBDA_FUNCTION_NAME: 'tessera-bundle',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_SESSION_TOKEN: 'test',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsUrl,
    JWT_SIGNING_KEY_SECRET_ARN: SIGNING_KEY_SECRET_ID,
    SECRETS_ENCRYPTION_KEY_SECRET_ARN: SECRETS_KEY_SECRET_ID,
    DATA_DIR: database.dataDir,
    PASSWORD_SCRYPT_COST: '1024',
    RATE_LIMIT_AUTHENTICATED_PER_HOUR: '1000000',
    RATE_LIMIT_ANONYMOUS_PER_HOUR: '1000000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
    RATE_LIMIT_CONSOLE_PER_MINUTE: '1000000',
    RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: '1000000',
    ...extra,
  };
  if (database.url !== undefined) env.DATABASE_URL = database.url;
  return env;
}

interface InvokeResult {
  statusCode: number;
  body?: string;
  /** The body is bytes in base64 (`bodyText` decodes it). */
  isBase64Encoded: boolean;
  /** Wall time of the handler call, and the CPU time the process spent in it. */
  ms: number;
  cpuMs: number;
}

export interface BundleRun {
  importMs: number;
  importCpuMs: number;
  results: InvokeResult[];
}

/** An answer's body as text, decoded when the handler answered bytes in base64. */
export function bodyText(result: InvokeResult): string {
  const body = result.body ?? '';
  return result.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** Imports `bundleDir`/index.mjs in a fresh `node` and calls its handler with `events` in order. */
export async function invokeBundle(
  bundleDir: string,
  events: readonly APIGatewayProxyEventV2[],
  env: NodeJS.ProcessEnv,
): Promise<BundleRun> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'tessera-bundle-events-'));
  try {
    const eventsFile = path.join(scratch, 'events.json');
    await writeFile(eventsFile, JSON.stringify(events));
    const { stdout } = await run(process.execPath, [INVOKER, bundleDir, eventsFile], { env, maxBuffer: 64 * 1024 * 1024 });
    const lastLine = stdout.trimEnd().split('\n').at(-1)!;
    return JSON.parse(lastLine) as BundleRun;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The database as the deploy migration leaves it for the bundles: migrated, the password word lists
 * stored (a bundle checks passwords against them there), the superuser created.
 */
export async function prepareBundleDatabase(db: Database, config: Config): Promise<void> {
  await prepareDatabase(db);
  await seedPasswordWords(db);
  await ensureSuperuser(db, config);
}

/** What `seedThroughBundles` creates, and the first requests then address. */
export const BUNDLE_FIXTURE = {
  organizationName: 'Bundle Org',
  organizationSlug: 'bundle-org',
  siteName: 'Bundle Site',
  siteSlug: 'bundle-site',
  appName: 'Bundle App',
  appSlug: 'bundle-app',
  weakPassword: 'password1',
  strongPassword: 'tidal-Quartz-harbor-91',
} as const;

/** A request as the gateway sends it for a signed-in caller (`token`), on `tenant` when given. */
export function signedRequest(method: string, url: string, token: string, body?: unknown, tenant?: string): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { host: 'localhost', authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (tenant !== undefined) headers['x-tenant'] = tenant;
  return gatewayEvent({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body), sourceIp: '203.0.113.10' });
}

/** An anonymous GET, as the gateway sends it. */
export function publicRequest(url: string): APIGatewayProxyEventV2 {
  return gatewayEvent({ method: 'GET', url, headers: { host: 'localhost' }, sourceIp: '203.0.113.10' });
}

export interface SeedRuns {
  /** A weak then a strong password for a new user, a new organization, its site. */
  console: BundleRun;
  /** An app on the site. */
  data: BundleRun;
}

/**
 * Through the bundles themselves, as a superuser: two user creations (a password zxcvbn refuses and
 * one it accepts), an organization and its site (console), and an app on the site (data).
 */
export async function seedThroughBundles(bundleDirOf: (group: string) => string, env: NodeJS.ProcessEnv, token: string): Promise<SeedRuns> {
  const fixture = BUNDLE_FIXTURE;
  const user = (password: string) => ({ username: 'bundled', email: 'bundled@example.com', password });
  const consoleRun = await invokeBundle(
    bundleDirOf('console'),
    [
      signedRequest('POST', '/api/cloud/users/', token, user(fixture.weakPassword)),
      signedRequest('POST', '/api/cloud/users/', token, user(fixture.strongPassword)),
      signedRequest('POST', '/api/cloud/organizations/', token, { name: fixture.organizationName }),
      signedRequest('POST', `/api/cloud/organizations/${fixture.organizationSlug}/sites/`, token, { name: fixture.siteName }),
    ],
    env,
  );
  const dataRun = await invokeBundle(
    bundleDirOf('data'),
    [signedRequest('POST', '/api/apps/', token, { name: fixture.appName }, fixture.siteSlug)],
    env,
  );
  return { console: consoleRun, data: dataRun };
}

/**
 * A cheap first request for `group`, as a signed-in caller: a GET of its first route that needs a
 * caller (else its first GET), on the fixture's site and app. Answering it takes what every request
 * takes: configuration, the signing key from Secrets Manager, the database, the route's code.
 */
export function firstRequestEvent(group: Pick<EndpointGroup, 'routes'>, token: string): APIGatewayProxyEventV2 {
  const gets = group.routes.filter((route) => route.method === 'GET' && route.path.replaceAll('{app_slug}', '').indexOf('{') < 0);
  const route = gets.find((candidate) => candidate.access !== 'public') ?? gets[0];
  if (route === undefined) throw new Error('the group has no GET route to call');
  const url = route.path.replaceAll('{app_slug}', BUNDLE_FIXTURE.appSlug);
  return signedRequest('GET', url, token, undefined, route.host === 'tenant' ? BUNDLE_FIXTURE.siteSlug : undefined);
}
