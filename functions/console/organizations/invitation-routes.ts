// The invitations endpoints: the organization's own (managers and invite_members holders) and the
// two public ones the invitee opens from the mail.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { defineRoute } from '#shared/http/route.ts';
import * as z from 'zod';
import { invitationRecord, invitationSchema } from './invitation-representation.ts';
import {
  acceptInvitationBody,
  createInvitationBody,
  invitationParams,
  listInvitationsQuery,
  resendParams,
  tokenParams,
} from './invitation-schemas.ts';
import {
  acceptInvitation,
  cancelInvitation,
  createInvitation,
  getInvitation,
  listOrganizationInvitations,
  publicInvitationDetails,
  resendInvitation,
  type InvitationServicePorts,
} from './invitation-service.ts';
import { organizationParams } from './organization-schemas.ts';

function ports(ctx: RequestContext): InvitationServicePorts {
  const { config, db, email } = ctx.runtime;
  return {
    db,
    email,
    now: ctx.runtime.now,
    consoleUrl: config.consoleUrl,
    ttlDays: config.invitationTtlDays,
    passwordCost: config.passwordScryptCost,
  };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic' } as const;
const INVITATIONS = '/api/cloud/organizations/{org_slug}/invitations/';

export const listInvitationsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: INVITATIONS,
  summary: 'List the invitations of an organization',
  access: 'user',
  params: organizationParams,
  query: listInvitationsQuery,
  envelope: 'C',
  response: invitationSchema,
  handler: async (ctx, { params, query }) => {
    const page = await listOrganizationInvitations(ports(ctx), ctx.user, params.org_slug, query);
    const now = ctx.runtime.now();
    return paged(
      page.rows.map((view) => invitationRecord(view, now)),
      page.total,
      toPageRequest(query),
    );
  },
});

export const createInvitationRoute = defineRoute({
  ...common,
  method: 'POST',
  path: INVITATIONS,
  summary: 'Invite someone by email; the mail carries the accept link',
  access: 'user',
  params: organizationParams,
  body: createInvitationBody,
  envelope: 'bare',
  response: invitationSchema,
  status: 201,
  handler: async (ctx, { params, body }) =>
    invitationRecord(await createInvitation(ports(ctx), ctx.user, params.org_slug, body), ctx.runtime.now()),
});

export const getInvitationRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${INVITATIONS}{uuid}/`,
  summary: 'Invitation detail',
  access: 'user',
  params: invitationParams,
  envelope: 'bare',
  response: invitationSchema,
  handler: async (ctx, { params }) =>
    invitationRecord(await getInvitation(ports(ctx), ctx.user, params.org_slug, params.uuid), ctx.runtime.now()),
});

export const cancelInvitationRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: `${INVITATIONS}{uuid}/`,
  summary: 'Cancel an invitation (its token stops working); answers the cancelled invitation',
  access: 'user',
  params: invitationParams,
  envelope: 'bare',
  response: invitationSchema,
  handler: async (ctx, { params }) =>
    invitationRecord(await cancelInvitation(ports(ctx), ctx.user, params.org_slug, params.uuid), ctx.runtime.now()),
});

export const resendInvitationRoute = defineRoute({
  ...common,
  method: 'POST',
  path: `${INVITATIONS}{id}/resend/`,
  summary: 'Mail an invitation again and extend its expiry',
  access: 'user',
  params: resendParams,
  envelope: 'bare',
  response: invitationSchema,
  handler: async (ctx, { params }) =>
    invitationRecord(await resendInvitation(ports(ctx), ctx.user, params.org_slug, params.id), ctx.runtime.now()),
});

export const invitationDetailsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/invitations/{token}/details/',
  summary: 'What an invitation offers, for the invitee who holds its token (public)',
  access: 'public',
  params: tokenParams,
  envelope: 'bare',
  response: () => invitationSchema().extend({ invitee_has_account: z.boolean() }),
  handler: async (ctx, { params }) => {
    const details = await publicInvitationDetails(ports(ctx), params.token);
    return { ...invitationRecord(details.view, ctx.runtime.now()), invitee_has_account: details.inviteeHasAccount };
  },
});

export const acceptInvitationRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/invitations/{token}/accept/',
  summary: 'Accept an invitation: with the invitee’s bearer token, or {username, password} for a new account (public)',
  // Public, but an existing invitee proves who they are with their own token.
  access: 'optional',
  params: tokenParams,
  body: acceptInvitationBody,
  envelope: 'bare',
  response: () =>
    z.strictObject({
      message: z.string(),
      invitation: invitationSchema(),
      user: z.strictObject({ uuid: z.string(), username: z.string(), email: z.string() }),
    }),
  handler: async (ctx, { params, body }) => {
    const accepted = await acceptInvitation(ports(ctx), ctx.principal, params.token, body);
    return {
      message: 'Invitation accepted.',
      invitation: invitationRecord(accepted.view, ctx.runtime.now()),
      user: { uuid: accepted.user.uuid, username: accepted.user.username, email: accepted.user.email },
    };
  },
});
