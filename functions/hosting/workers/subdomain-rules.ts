// The hosting rules of names: subdomain format, reserved names, environment prefixes, external
// base domains, and how they make a worker's full domain and web URL.
import type { HostingConfig } from '#shared/config.ts';
import { ValidationError } from '#shared/errors.ts';

/** Prefix of the full domain by the site's environment (production has none). */
const ENVIRONMENT_PREFIXES: Readonly<Record<string, string>> = {
  production: '',
  staging: 'staging-',
  development: 'dev-',
  testing: 'test-',
};

/** Names kept for the platform's own hosts; a worker may not take them on the hosted domain. */
export const RESERVED_SUBDOMAINS: ReadonlySet<string> = new Set([
  'www',
  'api',
  'admin',
  'app',
  'apps',
  'assets',
  'auth',
  'blog',
  'cdn',
  'cloud',
  'console',
  'dashboard',
  'dev',
  'docs',
  'email',
  'ftp',
  'help',
  'localhost',
  'login',
  'mail',
  'platform',
  'smtp',
  'staging',
  'static',
  'status',
  'support',
  'test',
]);

const SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const DOMAIN_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
/** Second-level labels under which a registrable domain has three labels (`example.co.uk`). */
const SECOND_LEVEL_LABELS = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu', 'ne', 'or']);
/** A DNS label holds at most 63 characters, the environment prefix included. */
export const MAX_LABEL_LENGTH = 63;

export function environmentPrefix(environment: string): string {
  return ENVIRONMENT_PREFIXES[environment] ?? '';
}

/** Why the subdomain is not well-formed for this prefix, or undefined when it is. */
export function subdomainFormatProblem(subdomain: string, prefix: string): string | undefined {
  if (!SUBDOMAIN.test(subdomain)) {
    return 'Use lowercase letters, digits and hyphens, without a leading or trailing hyphen.';
  }
  if (prefix.length + subdomain.length > MAX_LABEL_LENGTH) {
    return `Use at most ${MAX_LABEL_LENGTH - prefix.length} characters (with the "${prefix}" environment prefix).`;
  }
  return undefined;
}

export function assertSubdomainFormat(subdomain: string, prefix: string, field = 'subdomain'): void {
  const problem = subdomainFormatProblem(subdomain, prefix);
  if (problem !== undefined) throw ValidationError.forFields({ [field]: [problem] }, 'Invalid subdomain format.');
}

export interface DomainChoice {
  isInternal: boolean;
  /** The base domain: the hosted domain for internal workers, the customer's for external ones. */
  domain: string;
}

/**
 * The base domain of a worker. An external domain is a registrable domain with no subdomain part,
 * never the hosted domain, the platform's base domain or anything under them.
 */
export function domainChoice(
  config: Pick<HostingConfig, 'hostedDomain'>,
  platformDomain: string,
  isInternal: boolean,
  domain: string | undefined,
): DomainChoice {
  if (isInternal) return { isInternal, domain: config.hostedDomain };
  const fail = (message: string) => ValidationError.forFields({ domain: [message] }, message);
  if (domain === undefined || domain.trim() === '') throw fail('A domain is required when is_internal is false.');
  const normalized = domain.trim().toLowerCase().replace(/\.$/, '');
  const labels = normalized.split('.');
  for (const reserved of [config.hostedDomain, platformDomain]) {
    if (normalized === reserved || normalized.endsWith(`.${reserved}`))
      throw fail(`${reserved} and its subdomains are reserved for the platform.`);
  }
  if (
    normalized.length > 253 ||
    labels.length < 2 ||
    !labels.every((label) => DOMAIN_LABEL.test(label) && label.length <= MAX_LABEL_LENGTH)
  ) {
    throw fail('Send a domain name such as example.com.');
  }
  const registrable = labels.length === 2 || (labels.length === 3 && SECOND_LEVEL_LABELS.has(labels[1]!) && labels[2]!.length === 2);
  if (!registrable) throw fail('Send the base domain without a subdomain part (example.com, not www.example.com).');
  return { isInternal, domain: normalized };
}

export function fullDomainOf(prefix: string, subdomain: string, domain: string): string {
  return `${prefix}${subdomain}.${domain}`;
}

/** Internal workers are reached where the platform serves builds; external ones on the customer's domain. */
export function webUrlOf(config: Pick<HostingConfig, 'siteUrl'>, isInternal: boolean, fullDomain: string): string {
  return isInternal ? `${config.siteUrl.replace('{host}', fullDomain)}/` : `https://${fullDomain}/`;
}
