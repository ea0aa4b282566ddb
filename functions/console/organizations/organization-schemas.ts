// Request shapes of the organizations endpoints (organizations, members, invitations).
import { z } from 'zod';
import { pageQuery } from '#shared/http/pagination.ts';

/** Turns `ordering=-name,slug` into terms over a fixed set of fields; anything else is a 400. */
export function orderingQuery<F extends string>(fields: readonly F[], aliases: Record<string, F> = {}) {
  return z.string().transform((value, ctx): Array<{ field: F; descending: boolean }> => {
    const parsed: Array<{ field: F; descending: boolean }> = [];
    for (const term of value.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
      const name = term.replace(/^-/, '');
      const field = (fields as readonly string[]).includes(name) ? (name as F) : aliases[name];
      if (field === undefined) {
        ctx.addIssue({ code: 'custom', message: `Unknown ordering field "${name}". Choose from: ${fields.join(', ')}.` });
        return z.NEVER;
      }
      parsed.push({ field, descending: term.startsWith('-') });
    }
    return parsed;
  });
}

/** `true`/`1`, `false`/`0`, or `all`/`*` (no filter, read as undefined). */
export function tristateQuery(defaultValue: 'true' | 'false') {
  return z
    .enum(['true', '1', 'false', '0', 'all', '*'])
    .default(defaultValue)
    .transform((value) => (value === 'all' || value === '*' ? undefined : value === 'true' || value === '1'));
}

export const flagQuery = z.enum(['true', '1', 'false', '0']).transform((value) => value === 'true' || value === '1');

export const ORGANIZATION_ORDERING_FIELDS = ['name', 'slug', 'created', 'modified', 'is_active'] as const;
export type OrganizationOrderingField = (typeof ORGANIZATION_ORDERING_FIELDS)[number];

export const listOrganizationsQuery = z.object({
  search: z.string().trim().max(200).optional(),
  is_active: tristateQuery('true'),
  ordering: orderingQuery(ORGANIZATION_ORDERING_FIELDS).optional(),
  ...pageQuery(),
});
export type ListOrganizationsQuery = z.infer<typeof listOrganizationsQuery>;

const organizationName = z
  .string()
  .trim()
  .min(1, 'This field may not be blank.')
  .max(255, 'Ensure this field has no more than 255 characters.');

export const organizationSlug = z
  .string()
  .trim()
  .min(1, 'This field may not be blank.')
  .max(100, 'Ensure this field has no more than 100 characters.')
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Enter a valid slug: lowercase letters, numbers and single hyphens.');

export const createOrganizationBody = z.object({ name: organizationName, slug: organizationSlug.optional() });
export type CreateOrganizationBody = z.infer<typeof createOrganizationBody>;

export const changeOrganizationBody = z.object({ name: organizationName.optional(), is_active: z.boolean().optional() });
export type ChangeOrganizationBody = z.infer<typeof changeOrganizationBody>;

export const organizationParams = z.object({ org_slug: z.string().min(1).max(100) });
