// Deployment settings read from CDK context (`cdk deploy -c tessera:platformDomain=example.com`),
// and where the repository lives, so entries and lock files resolve wherever `cdk` is started.
import { fileURLToPath } from 'node:url';
import type { Node } from 'constructs';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

export interface DeploySettings {
  /** Becomes PLATFORM_DOMAIN; unset leaves the application default. */
  platformDomain?: string;
  /**
   * The Route 53 hosted zone of the platform domain: with both, the API answers on the domain and on
   * `*.<domain>` (tenant hosts) with a certificate and DNS records of its own.
   */
  hostedZoneId?: string;
  /** The hosted zone's name when it is a parent of the platform domain (default: the domain itself). */
  hostedZoneName?: string;
  /** Where alarm notifications are mailed (an SNS e-mail subscription). */
  alarmEmail?: string;
  /** Becomes CORS_ORIGINS (comma-separated); unset leaves the application default. */
  corsOrigins?: string;
  logLevel: LogLevel;
  adminUsername?: string;
  adminEmail?: string;
  /** Becomes EMAIL_FROM of the functions that send mail (a sender verified in SES). */
  emailFrom?: string;
  /** Becomes CONSOLE_URL: where links in mails (invitations) lead. */
  consoleUrl?: string;
  /** The Microsoft Graph app behind document-library buckets; unset, such buckets are refused. */
  documentLibrary?: DocumentLibrarySettings;
  /** Becomes HOSTED_DOMAIN: internal frontend workers answer on `<prefix><subdomain>.<hostedDomain>`. */
  hostedDomain?: string;
  /** A wildcard certificate for `*.<hostedDomain>` in us-east-1 (complete ARN), for the sites' distribution. */
  hostedCertificateArn?: string;
}

export interface DocumentLibrarySettings {
  tenantId: string;
  clientId: string;
  /** A Secrets Manager secret (complete ARN) holding the client secret as its string value. */
  clientSecretArn: string;
  siteHostname: string;
  /** GRAPH_SITE_PATH; unset keeps the application's naming rule. */
  sitePath?: string;
}

const DOCUMENT_LIBRARY_CONTEXT = {
  tenantId: 'tessera:graphTenantId',
  clientId: 'tessera:graphClientId',
  clientSecretArn: 'tessera:graphClientSecretArn',
  siteHostname: 'tessera:graphSiteHostname',
} as const;

/** All four Graph settings, or none (document-library buckets off); some of them is a mistake. */
function documentLibrarySettings(node: Node): DocumentLibrarySettings | undefined {
  const given = Object.fromEntries(Object.entries(DOCUMENT_LIBRARY_CONTEXT).map(([field, key]) => [field, stringContext(node, key)]));
  const missing = Object.entries(DOCUMENT_LIBRARY_CONTEXT).filter(([field]) => given[field] === undefined);
  if (missing.length === Object.keys(DOCUMENT_LIBRARY_CONTEXT).length) return undefined;
  if (missing.length > 0) {
    throw new Error(
      `Document library: context ${missing.map(([, key]) => key).join(', ')} must be set with the other tessera:graph* values`,
    );
  }
  return { ...(given as Omit<DocumentLibrarySettings, 'sitePath'>), sitePath: stringContext(node, 'tessera:graphSitePath') };
}

const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'];

function stringContext(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context ${key} must be a string`);
  return value;
}

export function deploySettings(node: Node): DeploySettings {
  const logLevel = stringContext(node, 'tessera:logLevel') ?? 'INFO';
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new Error(`Context tessera:logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    platformDomain: stringContext(node, 'tessera:platformDomain'),
    hostedZoneId: stringContext(node, 'tessera:hostedZoneId'),
    hostedZoneName: stringContext(node, 'tessera:hostedZoneName'),
    alarmEmail: stringContext(node, 'tessera:alarmEmail'),
    corsOrigins: stringContext(node, 'tessera:corsOrigins'),
    logLevel: logLevel as LogLevel,
    adminUsername: stringContext(node, 'tessera:adminUsername'),
    adminEmail: stringContext(node, 'tessera:adminEmail'),
    emailFrom: stringContext(node, 'tessera:emailFrom'),
    consoleUrl: stringContext(node, 'tessera:consoleUrl'),
    documentLibrary: documentLibrarySettings(node),
    hostedDomain: stringContext(node, 'tessera:hostedDomain'),
    hostedCertificateArn: stringContext(node, 'tessera:hostedCertificateArn'),
  };
}

/** Environment entries for the settings that were given; absent ones keep the code's defaults. */
export function definedEnvironment(entries: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
