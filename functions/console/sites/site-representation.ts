// How sites and domains look on the wire.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { DomainRow } from '#shared/db/platform-schema.ts';
import type { SiteWithOrganization } from './site-repository.ts';

/** The wire shapes of siteRecord and domainRecord, for the OpenAPI document and the test-time response check. */
export const siteSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      slug: z.string(),
      name: z.string(),
      description: z.string(),
      schema_name: z.string(),
      environment: z.string(),
      is_active: z.boolean(),
      organization: z.strictObject({ uuid: z.string(), slug: z.string(), name: z.string() }),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Site' }),
);

export const domainSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      slug: z.string(),
      domain: z.string(),
      is_primary: z.boolean(),
      is_active: z.boolean(),
      site: z.string(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Domain' }),
);

/** GET /api/sites/config/: the site without its timestamps, its active domains and the caller's permissions. */
export const siteConfigSchema = lazySchema(() =>
  siteSchema()
    .omit({ created_at: true, updated_at: true })
    .extend({
      domains: z.array(z.strictObject({ domain: z.string(), is_primary: z.boolean() })),
      primary_domain: z.string().nullable(),
      permissions: z.array(z.string()),
    })
    .meta({ id: 'SiteConfig' }),
);

/** One of a user's sites with the user's permissions there (site-user-routes.ts). */
export const userSiteSchema = lazySchema(() =>
  z.strictObject({ slug: z.string(), name: z.string(), permissions: z.array(z.string()) }).meta({ id: 'UserSite' }),
);

/** One of a site's users with their permissions there (site-user-routes.ts). */
export const siteUserSchema = lazySchema(() =>
  z.strictObject({ username: z.string(), email: z.string(), name: z.string(), permissions: z.array(z.string()) }).meta({ id: 'SiteUser' }),
);

export function siteRecord({ site, organization }: SiteWithOrganization) {
  return {
    uuid: site.uuid,
    slug: site.slug,
    name: site.name,
    description: site.description,
    schema_name: site.schemaName,
    environment: site.environment,
    is_active: site.isActive,
    organization: { uuid: organization.uuid, slug: organization.slug, name: organization.name },
    created_at: site.createdAt.toISOString(),
    updated_at: site.updatedAt.toISOString(),
  };
}

export function domainRecord(domain: DomainRow, site: { slug: string }) {
  return {
    uuid: domain.uuid,
    slug: domain.slug,
    domain: domain.domain,
    is_primary: domain.isPrimary,
    is_active: domain.isActive,
    site: site.slug,
    created_at: domain.createdAt.toISOString(),
    updated_at: domain.updatedAt.toISOString(),
  };
}
