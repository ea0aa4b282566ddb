// How an invitation looks on the wire (DECISIONS: the invitation record); the status reads
// `expired` once a pending invitation has passed its expiry.
import type { InvitationView } from './invitation-repository.ts';
import type { InvitationStatus } from './invitation-schemas.ts';

export function effectiveStatus(view: Pick<InvitationView, 'invitation'>, now: Date): InvitationStatus {
  const { status, expiresAt } = view.invitation;
  if (status === 'pending' && expiresAt.getTime() <= now.getTime()) return 'expired';
  return status as InvitationStatus;
}

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
