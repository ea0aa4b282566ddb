// How an organization looks on the wire.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { OrganizationRow } from '#shared/db/platform-schema.ts';

export interface OrganizationRecord {
  uuid: string;
  name: string;
  slug: string;
  is_active: boolean;
  created: string;
  modified: string;
}

/** The wire shape of OrganizationRecord, for the OpenAPI document and the test-time response check. */
export const organizationSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      name: z.string(),
      slug: z.string(),
      is_active: z.boolean(),
      created: z.string(),
      modified: z.string(),
    })
    .meta({ id: 'Organization' }),
);

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
