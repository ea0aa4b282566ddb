// Finds the site of a request: a registered domain matching the Host header, else the site whose
// slug the X-Tenant header names. Both look only at active sites (and active domains). The schema
// name in the answer comes from the site row, never from the request.
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '#shared/db/database.ts';
import { domains, sites } from '#shared/db/platform-schema.ts';
import type { Tenant } from './tenant.ts';

const tenantColumns = {
  siteId: sites.id,
  uuid: sites.uuid,
  slug: sites.slug,
  name: sites.name,
  schemaName: sites.schemaName,
  organizationId: sites.organizationId,
  environment: sites.environment,
};

/** `Example.COM:8443` → `example.com`. */
export function hostName(host: string): string {
  return host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
}

export async function tenantByDomain(db: Queryable, host: string): Promise<Tenant | undefined> {
  const [tenant] = await db.query((orm) =>
    orm
      .select(tenantColumns)
      .from(domains)
      .innerJoin(sites, eq(sites.id, domains.siteId))
      .where(and(eq(domains.domain, hostName(host)), eq(domains.isActive, true), eq(sites.isActive, true))),
  );
  return tenant;
}

export async function tenantBySlug(db: Queryable, slug: string): Promise<Tenant | undefined> {
  const [tenant] = await db.query((orm) =>
    orm.select(tenantColumns).from(sites).where(and(eq(sites.slug, slug), eq(sites.isActive, true))),
  );
  return tenant;
}

export interface TenantHint {
  host: string;
  /** The X-Tenant header, for hosts that are not a registered domain. */
  tenantHeader?: string;
}

export type TenantLookup = { found: Tenant } | { missing: 'no-hint' | 'unknown' };

/** What a site slug can look like; anything else cannot name a site and is not even looked up. */
const SITE_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,49}$/;

export async function resolveTenant(db: Queryable, hint: TenantHint): Promise<TenantLookup> {
  const byDomain = await tenantByDomain(db, hint.host);
  if (byDomain !== undefined) return { found: byDomain };
  const header = hint.tenantHeader?.trim().toLowerCase();
  if (header === undefined || header === '') return { missing: 'no-hint' };
  if (!SITE_SLUG_PATTERN.test(header)) return { missing: 'unknown' };
  const bySlug = await tenantBySlug(db, header);
  return bySlug === undefined ? { missing: 'unknown' } : { found: bySlug };
}
