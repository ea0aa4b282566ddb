// Where a worker is reached: the subdomain and base domain a request asks for, checked against the
// hosting rules and the platform-wide registry of domains already taken.
import { ValidationError } from '#shared/errors.ts';
import type { HostingEnv } from '../hosting-env.ts';
import type { Queryable } from '#shared/db/database.ts';
import { lockHostClaim, otherHostHolder } from '#shared/hosting/host-claims.ts';
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
 * (listed among its domains or not, this site's included) already holds. Runs in the transaction
 * that writes the claim and takes the host's claim lock first, so a claim of the same host in
 * another table at the same instant is either seen here or waits for this one.
 */
export async function assertDomainFree(tx: Queryable, env: HostingEnv, fullDomain: string, field: string, ownSlug?: string): Promise<void> {
  await lockHostClaim(tx, fullDomain);
  const other = await otherHostHolder(tx, fullDomain, env.platformDomain, { siteId: env.site.siteId, workerSlug: ownSlug });
  if (other !== undefined) throw takenError(field);
}
