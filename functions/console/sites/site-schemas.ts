// Request shapes of the sites, domains and user↔site relation endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { isSitePermission, SITE_PERMISSIONS, type SitePermission } from '#shared/tenancy/site-access.ts';

export const ENVIRONMENTS = ['production', 'staging', 'development', 'testing'] as const;

export { looksLikeUuid } from '#shared/text/slugs.ts';

const environment = lazySchema(() =>
  z.enum(ENVIRONMENTS, {
    error: () => `Choose one of: ${ENVIRONMENTS.join(', ')}.`,
  }),
);
const siteName = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, 'This field may not be blank.')
    .max(255, 'Ensure this field has no more than 255 characters.')
    .refine((name) => /[a-z0-9]/i.test(name), 'The name needs at least one letter or digit.'),
);
const description = lazySchema(() => z.string().max(10_000, 'Ensure this field has no more than 10000 characters.'));

export const createSiteBody = lazySchema(() =>
  z.object({
    name: siteName(),
    description: description().optional(),
    environment: environment().optional(),
  }),
);
export type CreateSiteBody = z.infer<ReturnType<typeof createSiteBody>>;

export const updateSiteBody = lazySchema(() =>
  z.object({
    name: siteName().optional(),
    description: description().optional(),
    environment: environment().optional(),
    is_active: z.boolean().optional(),
  }),
);
export type UpdateSiteBody = z.infer<ReturnType<typeof updateSiteBody>>;

const segment = lazySchema(() => z.string().min(1).max(255));
export const organizationParams = lazySchema(() => z.object({ org_slug: segment() }));
export const siteParams = lazySchema(() => z.object({ site_slug: segment() }));
export const domainParams = lazySchema(() => z.object({ site_slug: segment(), domain_slug: segment() }));
export const userSitesParams = lazySchema(() => z.object({ username: z.string().min(1).max(150) }));

export const listSitesQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    environment: environment().optional(),
    ...pageQuery(),
  }),
);
export type ListSitesQuery = z.infer<ReturnType<typeof listSitesQuery>>;

export const listDomainsQuery = lazySchema(() => z.object({ ...pageQuery() }));

const isPrimary = lazySchema(() => z.boolean());
export const createDomainBody = lazySchema(() =>
  z.object({
    domain: z.string().max(300, 'Ensure this field has no more than 253 characters.'),
    is_primary: isPrimary().optional(),
    is_active: z.boolean().optional(),
  }),
);
export type CreateDomainBody = z.infer<ReturnType<typeof createDomainBody>>;

export const replaceDomainBody = lazySchema(() => createDomainBody());
export const patchDomainBody = lazySchema(() => createDomainBody().partial());
export type DomainChanges = z.infer<ReturnType<typeof patchDomainBody>>;

/** A site permission codename; a bad one is named in the error. */
const sitePermission = lazySchema(() => z.string().transform(sitePermissionOf));

function sitePermissionOf(codename: string, ctx: z.RefinementCtx): SitePermission {
  if (!isSitePermission(codename)) {
    ctx.addIssue({
      code: 'custom',
      message: `"${codename}" is not a site permission. Choose from: ${SITE_PERMISSIONS.join(', ')}.`,
    });
    return z.NEVER;
  }
  return codename;
}
const permissionList = lazySchema(() =>
  z
    .array(sitePermission())
    .max(SITE_PERMISSIONS.length * 2)
    .optional(),
);

export const userSitesBody = lazySchema(() =>
  z.object({
    sites: z.array(z.object({ slug: z.string().min(1).max(255), permissions: permissionList() })).max(500),
  }),
);
export type UserSitesBody = z.infer<ReturnType<typeof userSitesBody>>;
export const userSitesDeleteBody = lazySchema(() => z.object({ sites: z.array(z.string().min(1).max(255)).min(1).max(500) }));

export const siteUsersBody = lazySchema(() =>
  z.object({
    users: z.array(z.object({ username: z.string().min(1).max(150), permissions: permissionList() })).max(500),
  }),
);
export type SiteUsersBody = z.infer<ReturnType<typeof siteUsersBody>>;
export const siteUsersDeleteBody = lazySchema(() => z.object({ users: z.array(z.string().min(1).max(150)).min(1).max(500) }));

export const userSitesQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    name: z.string().max(255).optional(),
    name__contains: z.string().max(255).optional(),
    ...pageQuery(),
  }),
);
export type UserSitesQuery = z.infer<ReturnType<typeof userSitesQuery>>;

export const siteUsersQuery = lazySchema(() =>
  z.object({
    search: z.string().trim().max(200).optional(),
    ...pageQuery(),
  }),
);
export type SiteUsersQuery = z.infer<ReturnType<typeof siteUsersQuery>>;
