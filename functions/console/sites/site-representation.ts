// How sites and domains look on the wire.
import type { DomainRow } from '#shared/db/platform-schema.ts';
import type { SiteWithOrganization } from './site-repository.ts';

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
