// How an organization looks on the wire.
import type { OrganizationRow } from '#shared/db/platform-schema.ts';

export interface OrganizationRecord {
  uuid: string;
  name: string;
  slug: string;
  is_active: boolean;
  created: string;
  modified: string;
}

export function organizationRecord(organization: OrganizationRow): OrganizationRecord {
  return {
    uuid: organization.uuid,
    name: organization.name,
    slug: organization.slug,
    is_active: organization.isActive,
    created: organization.created.toISOString(),
    modified: organization.modified.toISOString(),
  };
}
