// Request shapes of the invitations endpoints, the public details and accept calls included.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { password, username } from '../users/user-schemas.ts';
import { organizationPermissionNames, sitePermissionNames } from './member-schemas.ts';

export const INVITATION_STATUSES = ['pending', 'accepted', 'cancelled', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

const groupIdentifier = lazySchema(() => z.union([z.number().int().positive(), z.string().trim().min(1).max(150)]));

export const invitationConfig = lazySchema(() =>
  z
    .object({
      group: z.array(groupIdentifier()).max(100).optional(),
      site: z
        .array(z.object({ slug: z.string().trim().min(1).max(50), permissions: sitePermissionNames().optional() }))
        .max(100)
        .optional(),
    })
    .strict(),
);
export type InvitationConfig = z.infer<ReturnType<typeof invitationConfig>>;

export const createInvitationBody = lazySchema(() =>
  z.object({
    invitee_identifier: z
      .string()
      .trim()
      .max(254)
      .email('Enter a valid email address.')
      .transform((email) => email.toLowerCase()),
    permissions: organizationPermissionNames().optional(),
    invitation_config: invitationConfig().optional(),
  }),
);
export type CreateInvitationBody = z.infer<ReturnType<typeof createInvitationBody>>;

export const listInvitationsQuery = lazySchema(() =>
  z.object({
    status: z.enum(INVITATION_STATUSES).optional(),
    search: z.string().trim().max(200).optional(),
    ...pageQuery(),
  }),
);
export type ListInvitationsQuery = z.infer<ReturnType<typeof listInvitationsQuery>>;

export const invitationParams = lazySchema(() => z.object({ org_slug: z.string().min(1).max(100), uuid: z.string().min(1).max(100) }));
export const resendParams = lazySchema(() => z.object({ org_slug: z.string().min(1).max(100), id: z.string().min(1).max(100) }));
export const tokenParams = lazySchema(() => z.object({ token: z.string().min(1).max(100) }));

/** Empty for an existing user (who sends a bearer token); username and password for a new account. */
export const acceptInvitationBody = lazySchema(() =>
  z.object({
    username: username().optional(),
    password: password().optional(),
  }),
);
export type AcceptInvitationBody = z.infer<ReturnType<typeof acceptInvitationBody>>;
