// Tickets of the loader page. A browser sent to the loader carries a ticket, signed with the
// platform's token key, that says which grant to perform for whom; it lives two minutes, rides in the
// URL fragment (never sent to a server, so never in logs or Referer headers), and is redeemed once:
// redeeming records its id in the token blacklist, so a copied ticket cannot be replayed.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { revokedTokens } from '#shared/db/platform-schema.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { TokenIssuer } from '#shared/auth/tokens.ts';
import { InvalidTokenError } from '#shared/errors.ts';
import type { DocumentAction, DocumentGrant } from './document-access-plan.ts';

/** The ticket's `token_type`; also its type in the blacklist (which holds at most 10 characters). */
const PURPOSE = 'doc_ticket';
export const TICKET_TTL_SECONDS = 120;

export interface DocumentTicket {
  site: string;
  app: string;
  bucket: string;
  /** The object's bucket-relative path. */
  path: string;
  action: DocumentAction;
  grant: DocumentGrant;
}

const ticketClaims = lazySchema(() =>
  z.object({
    site: z.string(),
    app: z.string(),
    bucket: z.string(),
    path: z.string(),
    action: z.enum(['view', 'edit']),
    grant: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('anonymous') }),
      z.object({ kind: z.literal('user'), userId: z.number().int(), email: z.string(), displayName: z.string() }),
    ]),
  }),
);

export async function issueDocumentTicket(tokens: TokenIssuer, ticket: DocumentTicket): Promise<string> {
  const subject = ticket.grant.kind === 'user' ? String(ticket.grant.userId) : 'anonymous';
  const { token } = await tokens.issueTicket(PURPOSE, subject, { ...ticket }, TICKET_TTL_SECONDS);
  return token;
}

/** The ticket's grant, once: a second redemption (a replay) is 401 INVALID_TOKEN. */
export async function redeemDocumentTicket(db: Queryable, tokens: TokenIssuer, token: string): Promise<DocumentTicket> {
  const verified = await tokens.verifyTicket(token, PURPOSE);
  const parsed = ticketClaims().safeParse(verified.claims);
  if (!parsed.success) throw new InvalidTokenError('Ticket is malformed');
  const ticket = parsed.data;
  const claimed = await db.query((orm) =>
    orm
      .insert(revokedTokens)
      .values({ jti: verified.tokenId, userId: null, tokenType: PURPOSE, expiresAt: verified.expiresAt })
      .onConflictDoNothing()
      .returning({ jti: revokedTokens.jti }),
  );
  if (claimed.length === 0) throw new InvalidTokenError('Ticket has already been used');
  return ticket;
}
