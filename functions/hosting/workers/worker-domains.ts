// Where a worker is reached: the subdomain and base domain a request asks for, checked against the
// hosting rules and the platform-wide registry of domains already taken.
import { ValidationError } from '#shared/errors.ts';
import type { HostingEnv } from '../hosting-env.ts';
import { otherHostHolder } from '#shared/hosting/host-claims.ts';
import {
  RESERVED_SUBDOMAINS,
  assertSubdomainFormat,
  domainChoice,
  environmentPrefix,
  fullDomainOf,
  type DomainChoice,
} from './subdomain-rules.ts';

export interface WorkerTarget extends DomainChoice {
  subdomain: string;
  prefix: string;
  fullDomain: string;
}

export function takenError(field: string): ValidationError {
  return ValidationError.forFields({ [field]: ['This subdomain is already taken.'] }, 'This subdomain is already taken.');
}

/** The full domain a subdomain and base domain make for this site; throws 400 on a rule broken. */
export function workerTarget(
  env: HostingEnv,
  subdomain: string,
  isInternal: boolean,
  domain: string | undefined,
  field: string,
): WorkerTarget {
  const prefix = environmentPrefix(env.site.environment);
  assertSubdomainFormat(subdomain, prefix, field);
  if (isInternal && RESERVED_SUBDOMAINS.has(subdomain)) {
    throw ValidationError.forFields({ [field]: ['This subdomain is reserved.'] }, 'This subdomain is reserved.');
  }
  const choice = domainChoice(env.hosting, env.platformDomain, isInternal, domain);
  return { ...choice, subdomain, prefix, fullDomain: fullDomainOf(prefix, subdomain, choice.domain) };
}

/**
 * Refuses a full domain another worker (of any site), a site's domain or a site's own API host
 * (listed among its domains or not, this site's included) already holds.
 */
export async function assertDomainFree(env: HostingEnv, fullDomain: string, field: string, ownSlug?: string): Promise<void> {
  const other = await otherHostHolder(env.db, fullDomain, env.platformDomain, { siteId: env.site.siteId, workerSlug: ownSlug });
  if (other !== undefined) throw takenError(field);
}
