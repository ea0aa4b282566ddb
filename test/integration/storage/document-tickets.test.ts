// Loader tickets: signed, short-lived, single-use, and never interchangeable with sign-in tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateJwk, signingKeysFromJwk, type SigningKeys } from '#shared/auth/signing-keys.ts';
import { TokenIssuer } from '#shared/auth/tokens.ts';
import { InvalidTokenError } from '#shared/errors.ts';
import {
  issueDocumentTicket,
  redeemDocumentTicket,
  TICKET_TTL_SECONDS,
  type DocumentTicket,
} from '#functions/storage/documents/document-tickets.ts';
import { createTestDatabase, type TestDatabase } from '#test/support/test-database.ts';

const settings = { issuer: 'tessera', accessTtlSeconds: 900, refreshTtlSeconds: 3600 };
const ticket: DocumentTicket = {
  site: 'acme',
  app: 'crm',
  bucket: 'contracts',
  path: '2026/offer.docx',
  action: 'edit',
  grant: { kind: 'user', userId: 1, email: 'admin@example.com', displayName: 'admin' },
};

describe('document loader tickets', () => {
  let database: TestDatabase;
  let keys: SigningKeys;
  let tokens: TokenIssuer;

  beforeAll(async () => {
    database = await createTestDatabase();
    keys = await signingKeysFromJwk(await generatePrivateJwk());
    tokens = new TokenIssuer(keys, settings);
  });
  afterAll(async () => {
    await database.dispose();
  });

  it('redeems a ticket into the grant it was issued for', async () => {
    const issued = await issueDocumentTicket(tokens, ticket);

    expect(await redeemDocumentTicket(database.db, tokens, issued)).toEqual(ticket);
  });

  it('refuses a second redemption of the same ticket', async () => {
    const issued = await issueDocumentTicket(tokens, { ...ticket, action: 'view', grant: { kind: 'anonymous' } });
    await redeemDocumentTicket(database.db, tokens, issued);

    const replay = redeemDocumentTicket(database.db, tokens, issued);

    await expect(replay).rejects.toThrow('Ticket has already been used');
  });

  it('refuses an expired ticket', async () => {
    const issued = await issueDocumentTicket(tokens, ticket);
    const later = new TokenIssuer(keys, settings, () => new Date(Date.now() + (TICKET_TTL_SECONDS + 5) * 1000));

    await expect(redeemDocumentTicket(database.db, later, issued)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('never takes an access token for a ticket, nor a ticket for an access token', async () => {
    const { access } = await tokens.issuePair({ uuid: '00000000-0000-4000-8000-000000000001', username: 'admin' });
    const issued = await issueDocumentTicket(tokens, ticket);

    await expect(redeemDocumentTicket(database.db, tokens, access.token)).rejects.toThrow('Ticket is not for this purpose');
    await expect(tokens.verify(issued)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a ticket signed with another key', async () => {
    const stranger = new TokenIssuer(await signingKeysFromJwk(await generatePrivateJwk()), settings);
    const forged = await issueDocumentTicket(stranger, ticket);

    await expect(redeemDocumentTicket(database.db, tokens, forged)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});
