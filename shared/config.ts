// Every setting of the platform, read from the environment once and validated, so a bad value
// stops the process at start-up with a message naming the variable instead of failing later.
import path from 'node:path';
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';

const booleanFlag = () => z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const commaList = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const seconds = () => z.coerce.number().int().positive();

/**
 * API Gateway hands Lambda at most 6 MB of payload each way, and binary bodies travel base64-encoded
 * (4 bytes per 3): 4 MiB of bytes is 5.6 MB encoded, which leaves room for headers and the envelope.
 */
export const LAMBDA_DIRECT_TRANSFER_MAX_BYTES = 4 * 1024 * 1024;

/** A URL once `{site}` is filled in, over http or https. */
function isPublicUrlTemplate(value: string): boolean {
  try {
    const url = new URL(value.replaceAll('{site}', 'site'));
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Each site answers on its own `<slug>.<PLATFORM_DOMAIN>` (registered when the site is created):
 * over https when deployed, over http on the dev server's port locally.
 */
function defaultPublicApiUrl(platformDomain: string, port: number, env: NodeJS.ProcessEnv): string {
  if (env.AWS_LAMBDA_FUNCTION_NAME !== undefined) return `https://{site}.${platformDomain}`;
  return `http://{site}.${platformDomain}:${port}`;
}

/**
 * A variable's schema, built only when the variable is set, and its value when it is not (undefined:
 * optional). One zod object of every variable would be some 300 instances (each method call makes
 * one), built by every cold start, where a deployment sets a few dozen variables.
 */
interface Setting<S extends z.ZodType, F> {
  schema: () => S;
  fallback: F;
}

function setting<S extends z.ZodType>(schema: () => S): Setting<S, undefined>;
function setting<S extends z.ZodType>(schema: () => S, fallback: z.output<S>): Setting<S, z.output<S>>;
function setting<S extends z.ZodType>(schema: () => S, fallback?: z.output<S>): Setting<S, z.output<S> | undefined> {
  // Built once: some handlers (the schema migration task) read the settings on every invocation.
  return { schema: lazySchema(schema), fallback };
}

const SETTINGS = {
  PORT: setting(() => z.coerce.number().int().min(0).max(65535), 8000),
  HOST: setting(() => z.string().min(1), '127.0.0.1'),
  DATA_DIR: setting(() => z.string().min(1), '.data'),
  DATABASE_URL: setting(() => z.string().url()),
  DATABASE_SECRET_ARN: setting(() => z.string().min(1)),
  DATABASE_HOST: setting(() => z.string().min(1)),
  DATABASE_NAME: setting(() => z.string().min(1)),
  DATABASE_POOL_MAX: setting(() => z.coerce.number().int().min(1).max(100), 10),
  DATABASE_STATEMENT_TIMEOUT_MS: setting(() => z.coerce.number().int().min(0).max(3_600_000), 25_000),
  ADMIN_USERNAME: setting(() => z.string().min(1), 'admin'),
  ADMIN_EMAIL: setting(() => z.string().email(), 'admin@example.com'),
  ADMIN_PASSWORD: setting(() => z.string().min(8)),
  ADMIN_PASSWORD_SECRET_ARN: setting(() => z.string().min(1)),
  PLATFORM_DOMAIN: setting(() => z.string().min(1), 'localhost'),
  PUBLIC_API_URL: setting(() =>
    z.string().refine(isPublicUrlTemplate, 'must be an http(s) URL, optionally with {site} standing for the site slug'),
  ),
  CORS_ORIGINS: setting(commaList, ['http://localhost:3000', 'http://localhost:5173']),
  ACCESS_TOKEN_TTL_SECONDS: setting(seconds, 900),
  CONTEXT_REUSE_MS: setting(() => z.coerce.number().int().min(0).max(10_000), 500),
  REFRESH_TOKEN_TTL_SECONDS: setting(seconds, 7 * 24 * 3600),
  JWT_ISSUER: setting(() => z.string().min(1), 'tessera'),
  JWT_PRIVATE_KEY: setting(() => z.string().min(1)),
  JWT_SIGNING_KEY_SECRET_ARN: setting(() => z.string().min(1)),
  EMAIL_TRANSPORT: setting(() => z.enum(['outbox', 'ses']), 'outbox'),
  EMAIL_FROM: setting(() => z.string().min(3), 'Tessera <no-reply@localhost>'),
  CONSOLE_URL: setting(() => z.string().url(), 'http://localhost:3000'),
  INVITATION_TTL_DAYS: setting(() => z.coerce.number().int().min(1).max(90), 7),
  SECRETS_ENCRYPTION_KEY: setting(() =>
    z.string().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
  ),
  SECRETS_ENCRYPTION_KEY_SECRET_ARN: setting(() => z.string().min(1)),
  PASSWORD_SCRYPT_COST: setting(
    () =>
      z.coerce
        .number()
        .int()
        .min(1024)
        .refine((n) => (n & (n - 1)) === 0, 'must be a power of two'),
    32768,
  ),
  LOG_LEVEL: setting(() => z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
  REQUEST_LOG: setting(booleanFlag, true),
  OBJECT_STORE: setting(() => z.enum(['filesystem', 's3']), 'filesystem'),
  S3_BUCKET: setting(() =>
    z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)'),
  ),
  S3_ENDPOINT: setting(() => z.string().url()),
  S3_REGION: setting(() => z.string().min(1)),
  S3_FORCE_PATH_STYLE: setting(booleanFlag, false),
  S3_ACCESS_KEY_ID: setting(() => z.string().min(1)),
  S3_SECRET_ACCESS_KEY: setting(() => z.string().min(1)),
  PRESIGNED_URL_TTL_SECONDS: setting(
    () =>
      z.coerce
        .number()
        .int()
        .min(60)
        .max(7 * 24 * 3600),
    900,
  ),
  DIRECT_TRANSFER_MAX_BYTES: setting(() => z.coerce.number().int().positive()),
  GRAPH_API_URL: setting(() => z.string().url(), 'https://graph.microsoft.com/v1.0'),
  GRAPH_TOKEN_URL: setting(() => z.string().url()),
  GRAPH_TENANT_ID: setting(() => z.string().min(1)),
  GRAPH_CLIENT_ID: setting(() => z.string().min(1)),
  GRAPH_CLIENT_SECRET: setting(() => z.string().min(1)),
  GRAPH_CLIENT_SECRET_ARN: setting(() => z.string().min(1)),
  GRAPH_SITE_HOSTNAME: setting(() => z.string().min(1)),
  GRAPH_SITE_PATH: setting(
    () => z.string().startsWith('/').includes('{site}', { message: 'must contain {site}' }),
    '/sites/tessera-{site}',
  ),
  GRAPH_GUEST_WAIT_MS: setting(() => z.coerce.number().int().min(0).max(60_000), 8000),
  GRAPH_GUEST_POLL_MS: setting(() => z.coerce.number().int().min(1).max(10_000), 1000),
  GRAPH_REQUEST_TIMEOUT_MS: setting(() => z.coerce.number().int().min(100).max(120_000), 15_000),
  GRAPH_INVITE_REDIRECT_URL: setting(() => z.string().url()),
  SCHEMA_MIGRATION_STATE_MACHINE_ARN: setting(() => z.string().startsWith('arn:')),
  SCHEMA_MIGRATION_WAIT_MS: setting(() => z.coerce.number().int().min(0).max(28_000), 25_000),
  SCHEMA_LOCK_TIMEOUT_MS: setting(() => z.coerce.number().int().min(1).max(60_000), 5_000),
  SCHEMA_TOMBSTONE_RETENTION_SECONDS: setting(() => z.coerce.number().int().min(0), 7 * 24 * 3600),
  SCHEMA_DDL_TIMEOUT_MS: setting(() => z.coerce.number().int().min(1).max(30_000), 30_000),
  DATA_POPULATE_MAX_DEPTH: setting(() => z.coerce.number().int().min(1).max(10), 3),
  DATA_HIERARCHY_DEFAULT_DEPTH: setting(() => z.coerce.number().int().min(0).max(100), 10),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: setting(booleanFlag, false),
  MAINTENANCE_INTERVAL_SECONDS: setting(() => z.coerce.number().int().min(10), 300),
  MAINTENANCE_GRACE_SECONDS: setting(() => z.coerce.number().int().min(0), 900),
  MAINTENANCE_ORPHAN_KEYS_PER_RUN: setting(() => z.coerce.number().int().min(1), 100_000),
  PRE_EVENT_BUDGET_MS: setting(() => z.coerce.number().int().min(100).max(28_000), 20_000),
  PRE_EVENT_STATE_MACHINE_ARN: setting(() => z.string().startsWith('arn:')),
  POST_EVENT_QUEUE_URL: setting(() => z.string().url()),
  HOSTED_DOMAIN: setting(
    () => z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, 'must be a lower-case domain name'),
    'localhost',
  ),
  HOSTED_SITE_URL: setting(() =>
    z.string().refine((value) => /^https?:\/\/\{host\}(:\d+)?\/?$/.test(value), 'must be http(s)://{host} with an optional port'),
  ),
  HOSTING_BUCKET: setting(() =>
    z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)'),
  ),
  /** Deployed: the CloudFront KeyValueStore the edge reads host → build from; unset locally. */
  HOSTING_KVS_ARN: setting(() =>
    z.string().regex(/^arn:aws[a-z-]*:cloudfront::\d{12}:key-value-store\/[A-Za-z0-9-]+$/, 'must be a CloudFront KeyValueStore ARN'),
  ),
  HOSTING_MAX_ARCHIVE_BYTES: setting(() => z.coerce.number().int().positive(), 100 * 1024 * 1024),
  HOSTING_MAX_ENTRIES: setting(() => z.coerce.number().int().positive(), 10_000),
  HOSTING_MAX_FILE_BYTES: setting(() => z.coerce.number().int().positive(), 50 * 1024 * 1024),
  HOSTING_MAX_TOTAL_BYTES: setting(() => z.coerce.number().int().positive(), 250 * 1024 * 1024),
  HOSTING_MAX_COMPRESSION_RATIO: setting(() => z.coerce.number().positive(), 100),
  RATE_LIMIT_ENABLED: setting(booleanFlag, true),
  RATE_LIMIT_CONSOLE_PER_MINUTE: setting(() => z.coerce.number().int().positive(), 100),
  RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE: setting(() => z.coerce.number().int().positive(), 30),
  RATE_LIMIT_LOGIN_PER_HOUR: setting(() => z.coerce.number().int().positive(), 20),
  RATE_LIMIT_AUTHENTICATED_PER_HOUR: setting(() => z.coerce.number().int().positive(), 1000),
  RATE_LIMIT_ANONYMOUS_PER_HOUR: setting(() => z.coerce.number().int().positive(), 100),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: setting(() => z.coerce.number().int().positive(), 10),
  RATE_LIMIT_SWEEP_INTERVAL_SECONDS: setting(() => z.coerce.number().int().min(1).max(86_400), 300),
};

type SettingValue<T> = T extends Setting<infer S, infer F> ? z.output<S> | F : never;
type Settings = { [K in keyof typeof SETTINGS]: SettingValue<(typeof SETTINGS)[K]> };

/** Every variable that is set, parsed, and the fallbacks of the rest; a ConfigError names each bad one. */
function readSettings(env: NodeJS.ProcessEnv): Settings {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, { schema, fallback }] of Object.entries(SETTINGS) as Array<[string, Setting<z.ZodType, unknown>]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      // A fresh list each time: a caller that changes its config's list must not change the next one's.
      values[name] = Array.isArray(fallback) ? [...fallback] : fallback;
      continue;
    }
    const parsed = schema().safeParse(raw);
    if (parsed.success) values[name] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `${[name, ...issue.path].join('.')}: ${issue.message}`));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values as Settings;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: {
    url?: string;
    secretArn?: string;
    host?: string;
    name?: string;
    poolMax: number;
    /**
     * statement_timeout of each connection to DATABASE_URL (0: none): a statement still running when
     * API Gateway has given up on the request (30 s) only holds a connection. Past it the request is
     * answered 504 and the connection goes back to the pool. Statements that need longer (DDL of
     * schema migrations) set their own with SET LOCAL. Not sent behind RDS Proxy (the deployed
     * secret): whether the proxy takes it without pinning sessions is not checked; the proxy's init
     * query would be the place for it there.
     */
    statementTimeoutMs: number;
  };
  admin: { username: string; email: string; password?: string; passwordSecretArn?: string };
  platformDomain: string;
  /**
   * Base of the API's own URLs in answers (`file_url`, `complete_url`): `{site}` stands for the
   * site's slug. Links never come from the request's Host header.
   */
  publicApiUrl: string;
  corsOrigins: string[];
  tokens: {
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
    issuer: string;
    privateKeyJwk?: string;
    signingKeySecretArn?: string;
    /**
     * How long a caller's context, read for one of their reads, serves their next reads under a
     * guard (shared/tenancy/context-reuse.ts); 0 reads it on every request.
     */
    contextReuseMs: number;
  };
  email: {
    /** `outbox` writes each mail as a JSON file under DATA_DIR/outbox; `ses` sends through Amazon SES. */
    transport: 'outbox' | 'ses';
    from: string;
  };
  /** Where people open links sent by mail (invitations). */
  consoleUrl: string;
  invitationTtlDays: number;
  /** AES-256-GCM key for secret values: inline, from Secrets Manager, else DATA_DIR/secrets-key (generated). */
  secretsKey: { value?: string; secretArn?: string };
  passwordScryptCost: number;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  requestLog: boolean;
  /** Relations and hierarchies: how deep `populate` (and related filters) may nest; the default traversal depth. */
  relations: { populateMaxDepth: number; hierarchyDefaultDepth: number };
  schemaMigrations: {
    /** The deployed state machine; unset, migrations run through the same ASL in-process. */
    stateMachineArn?: string;
    /** How long a schema PATCH waits for its migration before answering 202 with the operation. */
    waitMs: number;
    /** lock_timeout of a migration's transaction (its row lock and its DDL locks). */
    lockTimeoutMs: number;
    /** How long a dropped column stays hidden (rollback restores its data) before the sweep drops it. */
    tombstoneRetentionMs: number;
    /** statement_timeout of each DDL statement: the spec's 30 s, which may only be lowered. */
    ddlTimeoutMs: number;
  };
  /** Where object bytes live: files under DATA_DIR/objects (the embedded default), or an S3 bucket. */
  objectStore: FilesystemStoreConfig | S3StoreConfig;
  /** How object bytes reach clients when they must bypass the API (deployed: Lambda payload limit). */
  transfers: {
    /** Lifetime of presigned upload and download URLs. */
    presignedUrlTtlSeconds: number;
    /**
     * Largest object the API carries itself; larger uploads take the presigned flow and larger
     * downloads redirect to a presigned GET, where the store can presign. Undefined: no limit.
     */
    directMaxBytes?: number;
  };
  /** Microsoft Graph behind document-library buckets; undefined when not configured (such buckets are refused). */
  documentLibrary?: DocumentLibraryConfig;
  /**
   * Whether calls to user-supplied URLs (OpenID discovery and the provider's endpoints) may reach
   * private, loopback and link-local addresses; off except in tests and closed networks.
   */
  outboundAllowPrivateNetworks: boolean;
  /** Request limits of DECISIONS (the console and the general statement); undefined when switched off. */
  rateLimit?: RateLimitConfig;
  hosting: HostingConfig;
  /** How long a PRE event's subscribers may take, all together, inside the request that fires it. */
  preEventBudgetMs: number;
  /**
   * The storage maintenance sweep (functions/storage/maintenance): how often locally, its grace
   * period, and how many of the object store's keys one run's orphan sweep lists before it stops
   * and keeps its place for the next run.
   */
  maintenance: { intervalSeconds: number; graceSeconds: number; orphanKeysPerRun: number };
  /** Deployed: the PRE-event Express state machine and the POST-event queue; unset runs both in-process. */
  preEventStateMachineArn?: string;
  postEventQueueUrl?: string;
}

/** Frontend workers: where builds are served and kept, and what an uploaded archive may hold. */
export interface HostingConfig {
  /** Internal workers answer on `<prefix><subdomain>.<hostedDomain>`; `localhost` locally. */
  hostedDomain: string;
  /** Base of a worker's `web_url`; `{host}` stands for its full domain. */
  siteUrl: string;
  /** Build files: a folder locally (DATA_DIR/builds), the builds bucket behind CloudFront when deployed. */
  store: FilesystemStoreConfig | S3StoreConfig;
  /** Deployed: the KeyValueStore holding host → active build prefix for the edge; unset locally. */
  hostMapArn?: string;
  limits: ArchiveLimits;
}

/** Checked while an archive streams in; the first one broken refuses the whole archive. */
export interface ArchiveLimits {
  archiveBytes: number;
  entries: number;
  fileBytes: number;
  totalBytes: number;
  /** Unpacked bytes per archive byte, for the whole archive and for each zip entry. */
  compressionRatio: number;
}

/** Requests allowed per window; the windows themselves are fixed (a minute, an hour). */
export interface RateLimitConfig {
  consolePerMinute: number;
  consoleWritesPerMinute: number;
  /** Login attempts per source IP and username. */
  loginPerHour: number;
  authenticatedPerHour: number;
  anonymousPerHour: number;
  anonymousPerMinute: number;
  /** How often one process deletes the counters whose windows have ended (at most once per this many seconds). */
  sweepIntervalSeconds: number;
}

export interface FilesystemStoreConfig {
  backend: 'filesystem';
  root: string;
}

export interface S3StoreConfig {
  backend: 's3';
  bucket: string;
  region: string;
  /** Any S3-compatible endpoint (MinIO, s3rver, ...); unset means AWS's own for the region. */
  endpoint?: string;
  /** `http://endpoint/bucket/key` rather than `http://bucket.endpoint/key` (most non-AWS servers). */
  forcePathStyle: boolean;
  /** Static keys for non-AWS endpoints; unset uses the SDK's chain (the Lambda role when deployed). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface DocumentLibraryConfig {
  /** Graph base URL, version included (`https://graph.microsoft.com/v1.0`). */
  apiUrl: string;
  /** OAuth 2.0 token endpoint of the client-credentials grant. */
  tokenUrl: string;
  clientId: string;
  /** Inline, or read from Secrets Manager on first use. */
  clientSecret: { value?: string; secretArn?: string };
  /** SharePoint host of the tenants' sites (`contoso.sharepoint.com`). */
  siteHostname: string;
  /** Server-relative path of a tenant's site, `{site}` standing for the Tessera site slug. */
  sitePathTemplate: string;
  /** How long a call waits for a newly invited guest to become resolvable, and how often it looks. */
  guestWaitMs: number;
  guestPollMs: number;
  requestTimeoutMs: number;
  /** Where a guest lands after redeeming an invitation (required by Graph, never mailed here). */
  inviteRedirectUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the settings; throws a ConfigError naming every bad variable at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const s = readSettings(env);
  const combinationProblems = [
    ...(s.OBJECT_STORE === 's3' && s.S3_BUCKET === undefined ? ['S3_BUCKET: required when OBJECT_STORE is s3'] : []),
    ...((s.S3_ACCESS_KEY_ID === undefined) !== (s.S3_SECRET_ACCESS_KEY === undefined)
      ? [`${s.S3_ACCESS_KEY_ID === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY'}: required with the other S3 key variable`]
      : []),
  ];
  if (combinationProblems.length > 0) throw new ConfigError(combinationProblems);
  const documentLibrary = documentLibraryConfig(s);
  if (documentLibrary instanceof ConfigError) throw documentLibrary;
  return {
    port: s.PORT,
    host: s.HOST,
    dataDir: s.DATA_DIR,
    database: {
      url: s.DATABASE_URL,
      secretArn: s.DATABASE_SECRET_ARN,
      host: s.DATABASE_HOST,
      name: s.DATABASE_NAME,
      poolMax: s.DATABASE_POOL_MAX,
      statementTimeoutMs: s.DATABASE_STATEMENT_TIMEOUT_MS,
    },
    admin: {
      username: s.ADMIN_USERNAME,
      email: s.ADMIN_EMAIL,
      password: s.ADMIN_PASSWORD,
      passwordSecretArn: s.ADMIN_PASSWORD_SECRET_ARN,
    },
    platformDomain: s.PLATFORM_DOMAIN,
    publicApiUrl: (s.PUBLIC_API_URL ?? defaultPublicApiUrl(s.PLATFORM_DOMAIN, s.PORT, env)).replace(/\/+$/, ''),
    corsOrigins: s.CORS_ORIGINS,
    tokens: {
      accessTtlSeconds: s.ACCESS_TOKEN_TTL_SECONDS,
      contextReuseMs: s.CONTEXT_REUSE_MS,
      refreshTtlSeconds: s.REFRESH_TOKEN_TTL_SECONDS,
      issuer: s.JWT_ISSUER,
      privateKeyJwk: s.JWT_PRIVATE_KEY,
      signingKeySecretArn: s.JWT_SIGNING_KEY_SECRET_ARN,
    },
    email: { transport: s.EMAIL_TRANSPORT, from: s.EMAIL_FROM },
    consoleUrl: s.CONSOLE_URL,
    invitationTtlDays: s.INVITATION_TTL_DAYS,
    secretsKey: { value: s.SECRETS_ENCRYPTION_KEY, secretArn: s.SECRETS_ENCRYPTION_KEY_SECRET_ARN },
    passwordScryptCost: s.PASSWORD_SCRYPT_COST,
    logLevel: s.LOG_LEVEL,
    requestLog: s.REQUEST_LOG,
    relations: { populateMaxDepth: s.DATA_POPULATE_MAX_DEPTH, hierarchyDefaultDepth: s.DATA_HIERARCHY_DEFAULT_DEPTH },
    schemaMigrations: {
      stateMachineArn: s.SCHEMA_MIGRATION_STATE_MACHINE_ARN,
      waitMs: s.SCHEMA_MIGRATION_WAIT_MS,
      lockTimeoutMs: s.SCHEMA_LOCK_TIMEOUT_MS,
      tombstoneRetentionMs: s.SCHEMA_TOMBSTONE_RETENTION_SECONDS * 1000,
      ddlTimeoutMs: s.SCHEMA_DDL_TIMEOUT_MS,
    },
    objectStore: objectStoreOf(s, env),
    transfers: {
      presignedUrlTtlSeconds: s.PRESIGNED_URL_TTL_SECONDS,
      directMaxBytes:
        s.DIRECT_TRANSFER_MAX_BYTES ?? (env.AWS_LAMBDA_FUNCTION_NAME === undefined ? undefined : LAMBDA_DIRECT_TRANSFER_MAX_BYTES),
    },
    documentLibrary,
    outboundAllowPrivateNetworks: s.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    hosting: hostingOf(s, env),
    preEventBudgetMs: s.PRE_EVENT_BUDGET_MS,
    maintenance: {
      intervalSeconds: s.MAINTENANCE_INTERVAL_SECONDS,
      graceSeconds: s.MAINTENANCE_GRACE_SECONDS,
      orphanKeysPerRun: s.MAINTENANCE_ORPHAN_KEYS_PER_RUN,
    },
    preEventStateMachineArn: s.PRE_EVENT_STATE_MACHINE_ARN,
    postEventQueueUrl: s.POST_EVENT_QUEUE_URL,
    rateLimit: s.RATE_LIMIT_ENABLED
      ? {
          consolePerMinute: s.RATE_LIMIT_CONSOLE_PER_MINUTE,
          consoleWritesPerMinute: s.RATE_LIMIT_CONSOLE_WRITES_PER_MINUTE,
          loginPerHour: s.RATE_LIMIT_LOGIN_PER_HOUR,
          authenticatedPerHour: s.RATE_LIMIT_AUTHENTICATED_PER_HOUR,
          anonymousPerHour: s.RATE_LIMIT_ANONYMOUS_PER_HOUR,
          anonymousPerMinute: s.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
          sweepIntervalSeconds: s.RATE_LIMIT_SWEEP_INTERVAL_SECONDS,
        }
      : undefined,
  };
}

function hostingOf(s: Settings, env: NodeJS.ProcessEnv): HostingConfig {
  return {
    hostedDomain: s.HOSTED_DOMAIN,
    siteUrl: (s.HOSTED_SITE_URL ?? (env.AWS_LAMBDA_FUNCTION_NAME === undefined ? `http://{host}:${s.PORT}` : 'https://{host}')).replace(
      /\/+$/,
      '',
    ),
    store:
      s.HOSTING_BUCKET === undefined
        ? { backend: 'filesystem', root: path.join(s.DATA_DIR, 'builds') }
        : s3StoreOf(s, env, s.HOSTING_BUCKET),
    ...(s.HOSTING_KVS_ARN === undefined ? {} : { hostMapArn: s.HOSTING_KVS_ARN }),
    limits: {
      archiveBytes: s.HOSTING_MAX_ARCHIVE_BYTES,
      entries: s.HOSTING_MAX_ENTRIES,
      fileBytes: s.HOSTING_MAX_FILE_BYTES,
      totalBytes: s.HOSTING_MAX_TOTAL_BYTES,
      compressionRatio: s.HOSTING_MAX_COMPRESSION_RATIO,
    },
  };
}

function objectStoreOf(s: Settings, env: NodeJS.ProcessEnv): Config['objectStore'] {
  if (s.OBJECT_STORE === 'filesystem' || s.S3_BUCKET === undefined) {
    return { backend: 'filesystem', root: path.join(s.DATA_DIR, 'objects') };
  }
  return s3StoreOf(s, env, s.S3_BUCKET);
}

/** A bucket reached with the S3_* settings (endpoint, region, keys). */
function s3StoreOf(s: Settings, env: NodeJS.ProcessEnv, bucket: string): S3StoreConfig {
  return {
    backend: 's3',
    bucket,
    // Lambda sets AWS_REGION; the SDK would read it too, but the presigned URLs need it known here.
    region: s.S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
    endpoint: s.S3_ENDPOINT,
    forcePathStyle: s.S3_FORCE_PATH_STYLE,
    credentials:
      s.S3_ACCESS_KEY_ID === undefined || s.S3_SECRET_ACCESS_KEY === undefined
        ? undefined
        : { accessKeyId: s.S3_ACCESS_KEY_ID, secretAccessKey: s.S3_SECRET_ACCESS_KEY },
  };
}

/**
 * The document library is configured by its client id, secret, token endpoint (or tenant id) and
 * SharePoint host together: none of them means "not configured", some of them is a mistake.
 */
function documentLibraryConfig(s: Settings): DocumentLibraryConfig | undefined | ConfigError {
  const required: Record<string, unknown> = {
    GRAPH_CLIENT_ID: s.GRAPH_CLIENT_ID,
    'GRAPH_CLIENT_SECRET or GRAPH_CLIENT_SECRET_ARN': s.GRAPH_CLIENT_SECRET ?? s.GRAPH_CLIENT_SECRET_ARN,
    'GRAPH_TENANT_ID or GRAPH_TOKEN_URL': s.GRAPH_TENANT_ID ?? s.GRAPH_TOKEN_URL,
    GRAPH_SITE_HOSTNAME: s.GRAPH_SITE_HOSTNAME,
  };
  const missing = Object.keys(required).filter((name) => required[name] === undefined);
  if (missing.length === Object.keys(required).length) return undefined;
  if (missing.length > 0) {
    return new ConfigError(missing.map((name) => `${name}: required to configure the document library`));
  }
  return {
    apiUrl: s.GRAPH_API_URL.replace(/\/+$/, ''),
    tokenUrl: s.GRAPH_TOKEN_URL ?? `https://login.microsoftonline.com/${encodeURIComponent(s.GRAPH_TENANT_ID!)}/oauth2/v2.0/token`,
    clientId: s.GRAPH_CLIENT_ID!,
    clientSecret: { value: s.GRAPH_CLIENT_SECRET, secretArn: s.GRAPH_CLIENT_SECRET_ARN },
    siteHostname: s.GRAPH_SITE_HOSTNAME!,
    sitePathTemplate: s.GRAPH_SITE_PATH,
    guestWaitMs: s.GRAPH_GUEST_WAIT_MS,
    guestPollMs: s.GRAPH_GUEST_POLL_MS,
    requestTimeoutMs: s.GRAPH_REQUEST_TIMEOUT_MS,
    inviteRedirectUrl: s.GRAPH_INVITE_REDIRECT_URL ?? s.CONSOLE_URL,
  };
}
