// The ports one process (a Lambda container, the dev server, a test) works with, built once.
// In Lambda the first request builds it from the environment; the dev server and tests hand theirs in.
import { loadConfig, type Config } from '#shared/config.ts';
import { loadSigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import type { Database } from '#shared/db/database.ts';
import { openDatabase } from '#shared/db/open-database.ts';
import type { EmailSender } from '#shared/email/email-port.ts';
import { createEmailSender } from '#shared/email/email-sender.ts';
import { configureLogger } from '#shared/logger.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import { openObjectStore } from '#shared/storage/open-object-store.ts';
import type { DocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import { openDocumentLibrary } from '#shared/storage/document-library/open-document-library.ts';

export interface Runtime {
  config: Config;
  db: Database;
  tokens: TokenIssuer;
  /** Outgoing mail (invitations): SES when deployed, the DATA_DIR outbox otherwise. */
  email: EmailSender;
  /** Object bytes (storage buckets): files under DATA_DIR locally, S3 when deployed. */
  objectStore: ObjectStore;
  /** Sites' Microsoft Graph document libraries (document-library buckets); undefined when not configured. */
  documentLibrary?: DocumentLibrary;
  /**
   * The time the rules that depend on it read (invitation expiry): the system clock, or a test's
   * fake one. Tokens and the database keep their own clocks.
   */
  now: () => Date;
}

export async function createRuntime(
  config: Config,
  ports: Partial<Pick<Runtime, 'db' | 'email' | 'objectStore' | 'now'>> = {},
): Promise<Runtime> {
  configureLogger(config.logLevel);
  const [db, keys, email, objectStore, documentLibrary] = await Promise.all([
    ports.db ?? openDatabase(config),
    loadSigningKeys(config),
    ports.email ?? createEmailSender(config),
    ports.objectStore ?? openObjectStore(config),
    openDocumentLibrary(config),
  ]);
  const tokens = new TokenIssuer(keys, {
    issuer: config.tokens.issuer,
    accessTtlSeconds: config.tokens.accessTtlSeconds,
    refreshTtlSeconds: config.tokens.refreshTtlSeconds,
  });
  return { config, db, tokens, email, objectStore, documentLibrary, now: ports.now ?? (() => new Date()) };
}

let current: Promise<Runtime> | undefined;

/** The process's runtime; built from the environment on first use when none was installed. */
export function getRuntime(): Promise<Runtime> {
  current ??= createRuntime(loadConfig()).catch((error: unknown) => {
    current = undefined; // let the next invocation try again instead of caching the failure
    throw error;
  });
  return current;
}

export function installRuntime(runtime: Runtime): void {
  current = Promise.resolve(runtime);
}
