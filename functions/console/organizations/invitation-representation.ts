// How an invitation looks on the wire (DECISIONS: the invitation record); the status reads
// `expired` once a pending invitation has passed its expiry.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { InvitationView } from './invitation-repository.ts';
import { INVITATION_STATUSES, type InvitationStatus } from './invitation-schemas.ts';

export function effectiveStatus(view: Pick<InvitationView, 'invitation'>, now: Date): InvitationStatus {
  const { status, expiresAt } = view.invitation;
  if (status === 'pending' && expiresAt.getTime() <= now.getTime()) return 'expired';
  return status as InvitationStatus;
}

/** The wire shape of invitationRecord, for the OpenAPI document and the test-time response check. */
export const invitationSchema = lazySchema(() =>
  z
    .strictObject({
      uuid: z.string(),
      invitee_identifier: z.string(),
      organization: z.strictObject({ slug: z.string(), name: z.string() }),
      invited_by: z.string().nullable(),
      permissions: z.array(z.string()),
      invitation_config: z.unknown(),
      status: z.enum(INVITATION_STATUSES),
      expires_at: z.string(),
      created_at: z.string(),
      accepted_at: z.string().nullable(),
    })
    .meta({ id: 'Invitation' }),
);

export function invitationRecord(view: InvitationView, now: Date) {
  const { invitation } = view;
  return {
    uuid: invitation.uuid,
    invitee_identifier: invitation.inviteeIdentifier,
    organization: { slug: view.organization.slug, name: view.organization.name },
    invited_by: view.invitedBy,
    permissions: invitation.permissions,
    invitation_config: invitation.invitationConfig,
    status: effectiveStatus(view, now),
    expires_at: invitation.expiresAt.toISOString(),
    created_at: invitation.createdAt.toISOString(),
    accepted_at: invitation.acceptedAt?.toISOString() ?? null,
  };
}
