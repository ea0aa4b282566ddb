// Request shapes of the members endpoints.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { ORGANIZATION_PERMISSIONS } from '../access/organization-access.ts';
import { flagQuery, orderingQuery, tristateQuery } from '#shared/http/query-params.ts';

export const MEMBER_ORDERING_FIELDS = [
  'username',
  'email',
  'first_name',
  'last_name',
  'date_joined',
  'is_admin',
  'is_owner',
  'created_at',
] as const;
export type MemberOrderingField = (typeof MEMBER_ORDERING_FIELDS)[number];

export const listMembersQuery = lazySchema(() =>
  z.object({
    user__is_active: tristateQuery('true'),
    user__is_deleted: tristateQuery('false'),
    is_admin: flagQuery().optional(),
    search: z.string().trim().max(200).optional(),
    ordering: orderingQuery(MEMBER_ORDERING_FIELDS, {
      user__username: 'username',
      user__email: 'email',
      user__first_name: 'first_name',
      user__last_name: 'last_name',
      user__date_joined: 'date_joined',
    }).optional(),
    ...pageQuery(),
  }),
);
export type ListMembersQuery = z.infer<ReturnType<typeof listMembersQuery>>;

export const sitePermissionNames = lazySchema(() => z.array(z.string().trim().min(1).max(100)).max(20));
export const organizationPermissionNames = lazySchema(() => z.array(z.enum(ORGANIZATION_PERMISSIONS)).max(ORGANIZATION_PERMISSIONS.length));
const groupIds = lazySchema(() => z.array(z.number().int().positive()).max(100));
const userIdentifier = lazySchema(() => z.string().trim().min(1, 'This field may not be blank.').max(150));

export const addMemberBody = lazySchema(() =>
  z
    .object({
      user_slug: userIdentifier().optional(),
      // The spec names it user_id but gives the username; a numeric id is taken too.
      // Ids are PostgreSQL integers: a larger number is a 400 here, not an out-of-range error later.
      user_id: z.union([userIdentifier(), z.number().int().positive().max(2_147_483_647)]).optional(),
      group_ids: groupIds().optional(),
      sites: z
        .array(z.object({ slug: z.string().trim().min(1).max(50), permissions: sitePermissionNames().optional() }))
        .max(100)
        .optional(),
      is_admin: z.boolean().optional(),
      permissions: organizationPermissionNames().optional(),
    })
    .refine((body) => body.user_slug !== undefined || body.user_id !== undefined, {
      message: 'Give user_slug or user_id (the username).',
      path: ['user_slug'],
    }),
);
export type AddMemberBody = z.infer<ReturnType<typeof addMemberBody>>;

export const changeMemberBody = lazySchema(() =>
  z.object({
    is_admin: z.boolean().optional(),
    groups: groupIds().optional(),
    site: z
      .array(z.object({ uuid: z.string().uuid('Must be a valid UUID.'), permissions: sitePermissionNames().optional() }))
      .max(100)
      .optional(),
    permissions: organizationPermissionNames().optional(),
  }),
);
export type ChangeMemberBody = z.infer<ReturnType<typeof changeMemberBody>>;

export const memberParams = lazySchema(() => z.object({ org_slug: z.string().min(1).max(100), username: z.string().min(1).max(150) }));
