// Finds the site of a request: a registered domain matching the Host header, else the site whose
// slug the X-Tenant header names. Both look only at active sites (and active domains). The schema
// name in the answer comes from the site row, never from the request.
import { and, eq, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { sites } from '#shared/db/platform-schema.ts';
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

export async function tenantBySlug(db: Queryable, slug: string): Promise<Tenant | undefined> {
  const [tenant] = await db.query((orm) =>
    orm
      .select(tenantColumns)
      .from(sites)
      .where(and(eq(sites.slug, slug), eq(sites.isActive, true))),
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

export interface TenantRow extends Record<string, unknown> {
  site_id: number;
  site_uuid: string;
  slug: string;
  name: string;
  schema_name: string;
  organization_id: number;
  environment: string;
}

/**
 * The site whose active domain is the Host (preferred) or whose slug X-Tenant names, as a one-row
 * subquery (`TenantRow` columns), so a caller's lookup can join it into a larger statement.
 */
export function tenantMatchSql(hint: TenantHint): SQL {
  const header = hint.tenantHeader?.trim().toLowerCase();
  const slug = header !== undefined && SITE_SLUG_PATTERN.test(header) ? header : null;
  return sql`select s.id as site_id, s.uuid::text as site_uuid, s.slug, s.name, s.schema_name, s.organization_id, s.environment
    from platform.sites s
    left join platform.domains d on d.site_id = s.id and d.domain = ${hostName(hint.host)} and d.is_active
    where s.is_active and (d.id is not null or s.slug = ${slug})
    order by (d.id is not null) desc
    limit 1`;
}

/** Why no site was found: no hint at all is a 400, a hint naming no site a 404. */
export function missingTenant(hint: TenantHint): { missing: 'no-hint' | 'unknown' } {
  const header = hint.tenantHeader?.trim();
  return { missing: header === undefined || header === '' ? 'no-hint' : 'unknown' };
}

export function tenantFromRow(row: TenantRow): Tenant {
  return {
    siteId: Number(row.site_id),
    uuid: row.site_uuid,
    slug: row.slug,
    name: row.name,
    schemaName: row.schema_name,
    organizationId: Number(row.organization_id),
    environment: row.environment,
  };
}

/** The site of an anonymous request, in one round trip. */
export async function resolveTenant(db: Queryable, hint: TenantHint): Promise<TenantLookup> {
  const [row] = await db.rows<TenantRow>(tenantMatchSql(hint));
  return row === undefined ? missingTenant(hint) : { found: tenantFromRow(row) };
}
