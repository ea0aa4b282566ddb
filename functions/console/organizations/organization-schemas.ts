// Request shapes of the organizations endpoints (organizations, members, invitations).
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { orderingQuery, tristateQuery } from '#shared/http/query-params.ts';
import { looksLikeUuid, UUID_SHAPED_SLUG } from '#shared/text/slugs.ts';

export const ORGANIZATION_ORDERING_FIELDS = ['name', 'slug', 'created', 'modified', 'is_active'] as const;
export type OrganizationOrderingField = (typeof ORGANIZATION_ORDERING_FIELDS)[number];

export const listOrganizationsQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    is_active: tristateQuery('true'),
    ordering: orderingQuery(ORGANIZATION_ORDERING_FIELDS).optional(),
    ...pageQuery(),
  }),
);
export type ListOrganizationsQuery = z.infer<ReturnType<typeof listOrganizationsQuery>>;

const organizationName = lazySchema(() =>
  z.string().trim().min(1, 'This field may not be blank.').max(255, 'Ensure this field has no more than 255 characters.'),
);

export const organizationSlug = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, 'This field may not be blank.')
    .max(100, 'Ensure this field has no more than 100 characters.')
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Enter a valid slug: lowercase letters, numbers and single hyphens.')
    .refine((slug) => !looksLikeUuid(slug), UUID_SHAPED_SLUG.slug),
);

export const createOrganizationBody = lazySchema(() => z.object({ name: organizationName(), slug: organizationSlug().optional() }));
export type CreateOrganizationBody = z.infer<ReturnType<typeof createOrganizationBody>>;

export const changeOrganizationBody = lazySchema(() =>
  z.object({ name: organizationName().optional(), is_active: z.boolean().optional() }),
);
export type ChangeOrganizationBody = z.infer<ReturnType<typeof changeOrganizationBody>>;

export const organizationParams = lazySchema(() => z.object({ org_slug: z.string().min(1).max(100) }));
