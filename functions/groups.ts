// The endpoint groups, one Lambda each: their route tables and where their entries live. The dev
// server, the invoke CLI and the CDK app all read this list, so a new group is added here once.
import type { AnyRoute } from '#shared/http/route.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import { authRoutes } from './auth/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { dataRoutes } from './data/routes.ts';
import { EXPLORER_VENDOR_FILES } from './docs/explorer-files.ts';
import { docsRoutes } from './docs/routes.ts';
import { eventsRoutes } from './events/routes.ts';
import { hostingRoutes } from './hosting/routes.ts';
import { rolesRoutes } from './roles/routes.ts';
import { secretsRoutes } from './secrets/routes.ts';
import { socialRoutes } from './social/routes.ts';
import { storageRoutes } from './storage/routes.ts';

/** Outside services a group's Lambda needs beyond the database and the signing key. */
export type GroupCapability =
  | 'email'
  | 'secrets-key'
  | 'object-store'
  | 'document-library'
  | 'schema-migrations'
  | 'hosted-builds'
  | 'user-events';

export interface EndpointGroup {
  name: string;
  /** Source of the Lambda entry, relative to the repository root; it exports `handler`. */
  entry: string;
  routes: readonly AnyRoute[];
  /** Drives the least-privilege grants in CDK: only groups that send mail may use SES, and so on. */
  uses: readonly GroupCapability[];
  /** Files of the repository the deployed bundle needs beside index.mjs: `{from: repository path, to: bundle path}`. */
  files?: ReadonlyArray<{ from: string; to: string }>;
  /**
   * Serves the OpenAPI document. Its bundle carries the document, written from every group's routes
   * when the bundle is built (groupBundleOptions in infra/bundling.ts), instead of those routes.
   */
  servesApiDescription?: true;
  loadHandler: () => Promise<ApiHandler>;
}

export const endpointGroups: readonly EndpointGroup[] = [
  {
    name: 'auth',
    entry: 'functions/auth/handler.ts',
    routes: authRoutes,
    uses: [],
    loadHandler: async () => (await import('./auth/handler.ts')).handler,
  },
  {
    name: 'console',
    entry: 'functions/console/handler.ts',
    routes: consoleRoutes,
    // Invitations are mailed; creating a user through a site fires its user events, whose
    // functions' signing secrets are sealed with the secrets key.
    uses: ['email', 'secrets-key', 'user-events'],
    loadHandler: async () => (await import('./console/handler.ts')).handler,
  },
  {
    name: 'data',
    entry: 'functions/data/handler.ts',
    routes: dataRoutes,
    // A schema PATCH starts the schema-migration state machine.
    uses: ['schema-migrations'],
    loadHandler: async () => (await import('./data/handler.ts')).handler,
  },
  {
    name: 'docs',
    entry: 'functions/docs/handler.ts',
    routes: docsRoutes,
    // The readiness check reads the object store's head of a probe key; the explorer pages serve
    // the vendors' bundles, copied beside the function's code.
    uses: ['object-store'],
    files: EXPLORER_VENDOR_FILES,
    servesApiDescription: true,
    loadHandler: async () => (await import('./docs/handler.ts')).handler,
  },
  {
    name: 'events',
    entry: 'functions/events/handler.ts',
    routes: eventsRoutes,
    // The functions' signing secrets are stored sealed.
    uses: ['secrets-key'],
    loadHandler: async () => (await import('./events/handler.ts')).handler,
  },
  {
    name: 'hosting',
    entry: 'functions/hosting/handler.ts',
    routes: hostingRoutes,
    // Build files: a folder locally, the builds bucket behind CloudFront when deployed.
    uses: ['hosted-builds'],
    loadHandler: async () => (await import('./hosting/handler.ts')).handler,
  },
  {
    name: 'roles',
    entry: 'functions/roles/handler.ts',
    routes: rolesRoutes,
    uses: [],
    loadHandler: async () => (await import('./roles/handler.ts')).handler,
  },
  {
    name: 'secrets',
    entry: 'functions/secrets/handler.ts',
    routes: secretsRoutes,
    // Secret values are encrypted with the secrets key.
    uses: ['secrets-key'],
    loadHandler: async () => (await import('./secrets/handler.ts')).handler,
  },
  {
    name: 'social',
    entry: 'functions/social/handler.ts',
    routes: socialRoutes,
    uses: [],
    loadHandler: async () => (await import('./social/handler.ts')).handler,
  },
  {
    name: 'storage',
    entry: 'functions/storage/handler.ts',
    routes: storageRoutes,
    // Object bytes: the filesystem locally, S3 when deployed; document-library buckets through Graph.
    uses: ['object-store', 'document-library'],
    loadHandler: async () => (await import('./storage/handler.ts')).handler,
  },
];
