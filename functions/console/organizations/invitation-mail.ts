// The invitation mail: who invites, to what, and the link that opens the accept page.
import type { EmailMessage } from '#shared/email/email-port.ts';

export function acceptLink(consoleUrl: string, token: string): string {
  return `${consoleUrl.replace(/\/+$/, '')}/invitations/${token}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function invitationMail(input: {
  to: string;
  organizationName: string;
  inviter: string | null;
  link: string;
  expiresAt: Date;
}): EmailMessage {
  const who = input.inviter ?? 'Someone';
  const until = input.expiresAt.toISOString();
  return {
    to: input.to,
    subject: `You are invited to join ${input.organizationName} on Tessera`,
    text: [
      `${who} invited you to join ${input.organizationName} on Tessera.`,
      '',
      `Accept the invitation: ${input.link}`,
      '',
      `The invitation is valid until ${until}.`,
    ].join('\n'),
    html: [
      `<p>${escapeHtml(who)} invited you to join <strong>${escapeHtml(input.organizationName)}</strong> on Tessera.</p>`,
      `<p><a href="${escapeHtml(input.link)}">Accept the invitation</a></p>`,
      `<p>The invitation is valid until ${escapeHtml(until)}.</p>`,
    ].join('\n'),
  };
}
