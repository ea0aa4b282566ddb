// View and edit links of the document-library adapter, and the silent guest flow, against the
// loopback Graph stand-in.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { DocumentLibrary, type SiteDocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import {
  GuestInvitationPropagationTimeoutError,
  LibrarySiteNotReadyError,
  NonOfficeEditRejectedError,
  ProviderCommunicationError,
} from '#shared/storage/document-library/document-library-errors.ts';
import { ObjectMissingError } from '#shared/storage/storage-errors.ts';
import { startGraphStandIn, type GraphStandIn } from '#test/support/graph-stand-in.ts';
import type { StandInSite } from '#test/support/graph-stand-in-state.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const GUEST_WAIT_MS = 400;

describe('document-library view and edit links', () => {
  let standIn: GraphStandIn;
  let library: DocumentLibrary;
  let site: StandInSite;
  let acme: SiteDocumentLibrary;
  const memo = { key: 'b1/memo.docx', mimetype: DOCX };
  const notes = { key: 'b1/notes.txt', mimetype: 'text/plain' };
  const grantsTo = (email: string) => standIn.state.permissions.filter((permission) => permission.email === email);

  beforeAll(async () => {
    standIn = await startGraphStandIn();
    library = new DocumentLibrary(
      loadConfig(standIn.env({ GRAPH_GUEST_WAIT_MS: String(GUEST_WAIT_MS), GRAPH_GUEST_POLL_MS: '20' })).documentLibrary!,
    );
    site = standIn.provisionSite('acme');
    acme = library.forSite('acme');
    await acme.store.put(memo.key, Buffer.from('memo'), { contentType: DOCX });
    await acme.store.put(notes.key, Buffer.from('notes'), { contentType: 'text/plain' });
    standIn.state.addUser('member@contoso.test');
  });
  beforeEach(() => {
    standIn.guestPropagation = 0;
  });
  afterAll(async () => {
    await standIn.close();
  });

  it('answers an anonymous read-only sharing link for an anonymous viewer, granting nobody', async () => {
    const link = await acme.access.viewLink(notes, 'anonymous');

    const [created] = standIn.callsMatching('POST', /\/createLink$/);
    expect(created?.body).toEqual({ type: 'view', scope: 'anonymous' });
    const permission = standIn.state.permissions.find((candidate) => candidate.link?.webUrl === link.url);
    expect(permission).toMatchObject({ roles: ['read'], link: { type: 'view', scope: 'anonymous' }, itemPath: '/b1/notes.txt' });
    expect(link.mode).toBe('view');
    expect(standIn.callsMatching('POST', /\/invite$/)).toHaveLength(0);
  });

  it('grants a known user read access without mail and answers the document URL', async () => {
    const link = await acme.access.viewLink(notes, { email: 'member@contoso.test' });

    expect(grantsTo('member@contoso.test')).toEqual([
      expect.objectContaining({ itemPath: '/b1/notes.txt', roles: ['read'], requireSignIn: true, sendInvitation: false }),
    ]);
    expect(link).toEqual({ url: standIn.state.webUrlOf(standIn.file(site, notes.key)!), mode: 'view' });
    expect(standIn.state.invitations).toHaveLength(0);
  });

  it('grants a known user write access on an Office document for edit', async () => {
    const link = await acme.access.editLink(memo, { email: 'member@contoso.test' });

    expect(grantsTo('member@contoso.test').find((permission) => permission.itemPath === '/b1/memo.docx')?.roles).toEqual(['write']);
    expect(link).toEqual({ url: standIn.state.webUrlOf(standIn.file(site, memo.key)!), mode: 'edit' });
  });

  it('refuses to edit a non-Office document before asking the provider anything', async () => {
    const callsBefore = standIn.calls.length;

    const refused = await acme.access.editLink(notes, { email: 'member@contoso.test' }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(NonOfficeEditRejectedError);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', extras: { provider_error_code: 'non_office_edit_rejected' } });
    expect(standIn.calls.length).toBe(callsBefore);
  });

  it('invites an unknown user as a silent guest and waits until the guest resolves before granting', async () => {
    standIn.guestPropagation = 3;

    const link = await acme.access.viewLink(notes, { email: 'new.guest@partner.test', displayName: 'New Guest' });

    expect(standIn.state.invitations).toEqual([
      expect.objectContaining({ invitedUserEmailAddress: 'new.guest@partner.test', sendInvitationMessage: false }),
    ]);
    expect(
      standIn.callsMatching('GET', /^\/v1\.0\/users$/).filter((call) => call.query.$filter?.includes('new.guest@partner.test')),
    ).toHaveLength(5);
    expect(grantsTo('new.guest@partner.test')).toEqual([expect.objectContaining({ roles: ['read'], sendInvitation: false })]);
    expect(link.mode).toBe('view');
  });

  it('gives up after the guest wait with 503 CONFLICT guest_invitation_propagation_timeout and grants nothing', async () => {
    standIn.guestPropagation = 'never';
    const started = Date.now();

    const timedOut = await acme.access.editLink(memo, { email: 'slow.guest@partner.test' }).catch((error: unknown) => error);

    const waited = Date.now() - started;
    expect(timedOut).toBeInstanceOf(GuestInvitationPropagationTimeoutError);
    expect(timedOut).toMatchObject({
      status: 503,
      code: 'CONFLICT',
      extras: { provider_error_code: 'guest_invitation_propagation_timeout' },
    });
    expect((timedOut as GuestInvitationPropagationTimeoutError).headers?.['Retry-After']).toBeDefined();
    expect(waited).toBeGreaterThanOrEqual(GUEST_WAIT_MS - 40);
    expect(waited).toBeLessThan(GUEST_WAIT_MS + 1500);
    expect(grantsTo('slow.guest@partner.test')).toEqual([]);
  });

  it('answers 404 for a document missing from the library and grants nothing', async () => {
    const missing = await acme.access
      .viewLink({ key: 'b1/gone.docx', mimetype: DOCX }, { email: 'member@contoso.test' })
      .catch((error: unknown) => error);

    expect(missing).toBeInstanceOf(ObjectMissingError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('answers 409 library_site_not_ready for a site whose library is not provisioned', async () => {
    const refused = await library
      .forSite('unprovisioned')
      .access.viewLink(notes, 'anonymous')
      .catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(LibrarySiteNotReadyError);
  });

  it('turns a failing grant into 502 BAD_REQUEST', async () => {
    standIn.failNext(/\/invite$/, 503, 1);

    const failed = await acme.access.editLink(memo, { email: 'member@contoso.test' }).catch((error: unknown) => error);

    expect(failed).toBeInstanceOf(ProviderCommunicationError);
    expect(failed).toMatchObject({ status: 502, code: 'BAD_REQUEST' });
  });
});
