// `/view/` and `/edit/` of objects through the dev server, with the Graph stand-in as the provider:
// every branch of the spec's document-library actions and every error code they answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGraphStandIn, type GraphStandIn } from '#test/support/graph-stand-in.ts';
import { createBucket, createStorageSite, sendBinary, siteUser, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const JSON_ACCEPT = { accept: 'application/json' };

describe('document-library view and edit actions', () => {
  let standIn: GraphStandIn;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let owner: string;
  let member: string;
  let outsider: string;
  let contracts: string;
  let published: string;
  let plain: string;

  const call = (path: string, token?: string, headers: Record<string, string> = JSON_ACCEPT) =>
    app.request('GET', path, { ...(token === undefined ? {} : { token }), headers: { ...site.tenant, ...headers } });
  const grantsTo = (username: string) => standIn.state.permissions.filter((permission) => permission.email === `${username}@example.com`);

  /** Uploads a file by path as `username`, as a client would. */
  async function upload(
    on: StorageSite,
    objects: string,
    path: string,
    mimetype: string,
    token: string,
    visibility?: 'public' | 'private',
  ) {
    const stored = await sendBinary(app.url, 'PUT', `${objects}${path}`, {
      token,
      headers: { ...on.tenant, 'content-type': mimetype },
      body: Buffer.from(`content of ${path}`),
    });
    if (stored.status !== 201) throw new Error(`upload of ${path}: ${stored.status} ${stored.bytes.toString()}`);
    if (visibility !== undefined) {
      const changed = await app.request('PATCH', `${objects}${path}`, { token, headers: on.tenant, body: { visibility } });
      if (changed.status !== 200) throw new Error(`visibility of ${path}: ${changed.status} ${JSON.stringify(changed.body)}`);
    }
    return stored.json.data;
  }

  beforeAll(async () => {
    standIn = await startGraphStandIn();
    app = await startTestApp(standIn.env());
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Docs Site');
    standIn.provisionSite(site.slug);
    owner = await siteUser(app, admin, site, 'doc-owner', ['view_site']);
    member = await siteUser(app, admin, site, 'doc-member', ['view_site']);
    outsider = await siteUser(app, admin, site, 'doc-outsider', []);
    for (const username of ['doc-owner', 'doc-member', 'admin']) standIn.state.addUser(`${username}@example.com`);
    contracts = await createBucket(app, admin, site, { name: 'Contracts', storage_provider: 'document_library' });
    published = await createBucket(app, admin, site, { name: 'Published', storage_provider: 'document_library', visibility: 'public' });
    plain = await createBucket(app, admin, site, { name: 'Plain' });
    await upload(site, contracts, 'deals/offer.docx', DOCX, owner);
    await upload(site, contracts, 'deals/scan.pdf', 'application/pdf', owner);
    await upload(site, published, 'handbook.docx', DOCX, owner);
    await upload(site, plain, 'notes.docx', DOCX, owner);
  });
  beforeEach(() => {
    standIn.guestPropagation = 0;
  });
  afterAll(async () => {
    await app.close();
    await standIn.close();
  });

  describe('with Accept: application/json', () => {
    it("grants a private object's owner read access and answers the document URL", async () => {
      const answer = await call(`${contracts}deals/offer.docx/view/`, owner);

      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        status: 'success',
        message: expect.any(String),
        data: { url: expect.stringContaining('/Shared%20Documents/'), mode: 'view' },
      });
      expect(grantsTo('doc-owner')).toEqual([expect.objectContaining({ roles: ['read'], requireSignIn: true, sendInvitation: false })]);
    });

    it("grants a private Office document's owner restricted edit access", async () => {
      const answer = await call(`${contracts}deals/offer.docx/edit/`, owner);

      expect(answer.status).toBe(200);
      expect(answer.body.data.mode).toBe('edit');
      expect(grantsTo('doc-owner').map((permission) => permission.roles)).toContainEqual(['read', 'write']);
    });

    it('lets staff open a private object they do not own', async () => {
      const answer = await call(`${contracts}deals/offer.docx/view/`, admin);

      expect(answer.status).toBe(200);
      expect(grantsTo('admin')).toHaveLength(1);
    });

    it('answers an anonymous link for an object made public inside a private bucket', async () => {
      await upload(site, contracts, 'deals/brochure.docx', DOCX, owner, 'public');

      const answer = await call(`${contracts}deals/brochure.docx/view/`);

      expect(answer.status).toBe(200);
      expect(standIn.state.permissions.find((permission) => permission.link?.webUrl === answer.body.data.url)?.link?.scope).toBe(
        'anonymous',
      );
    });

    it('answers an anonymous read-only link for a public object, with or without sign-in, granting nobody', async () => {
      const grantsBefore = standIn.state.permissions.filter((permission) => permission.email !== undefined).length;

      const anonymous = await call(`${published}handbook.docx/view/`);
      const signedIn = await call(`${published}handbook.docx/view/`, member);

      for (const answer of [anonymous, signedIn]) {
        expect(answer.status).toBe(200);
        expect(answer.body.data.mode).toBe('view');
      }
      expect(anonymous.body.data.url).toBe(signedIn.body.data.url);
      expect(standIn.state.permissions.find((permission) => permission.link?.webUrl === anonymous.body.data.url)?.link).toEqual(
        expect.objectContaining({ type: 'view', scope: 'anonymous' }),
      );
      expect(standIn.state.permissions.filter((permission) => permission.email !== undefined)).toHaveLength(grantsBefore);
    });

    it('grants any member a per-user edit permission on a public Office document', async () => {
      const answer = await call(`${published}handbook.docx/edit/`, member);

      expect(answer.status).toBe(200);
      expect(answer.body.data.mode).toBe('edit');
      expect(grantsTo('doc-member')).toEqual([
        expect.objectContaining({ itemPath: expect.stringMatching(/handbook\.docx$/), roles: ['write'] }),
      ]);
    });

    it('refuses an anonymous edit with 401 before asking the provider anything', async () => {
      const callsBefore = standIn.calls.length;

      const answer = await call(`${published}handbook.docx/edit/`);

      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('AUTHENTICATION_FAILED');
      expect(standIn.calls.length).toBe(callsBefore);
    });

    it('refuses an edit by a signed-in user without access to the site with 403', async () => {
      const answer = await call(`${published}handbook.docx/edit/`, outsider);

      expect(answer.status).toBe(403);
    });

    it('hides a private object from other users and anonymous callers with 404', async () => {
      for (const token of [member, undefined]) {
        for (const action of ['view', 'edit']) {
          const answer = await call(`${contracts}deals/offer.docx/${action}/`, token);
          expect(answer.status).toBe(token === undefined && action === 'edit' ? 401 : 404);
        }
      }
      expect(grantsTo('doc-member').some((permission) => permission.itemPath.endsWith('offer.docx'))).toBe(false);
    });

    it('answers 404 NOT_FOUND for a missing object and a missing bucket', async () => {
      const missingObject = await call(`${contracts}deals/none.docx/view/`, owner);
      const missingBucket = await call(`${site.buckets}no-such-bucket/objects/offer.docx/view/`, owner);

      for (const answer of [missingObject, missingBucket]) {
        expect(answer.status).toBe(404);
        expect(answer.body.code).toBe('NOT_FOUND');
      }
    });

    it('refuses to edit a non-Office document with 400 non_office_edit_rejected and grants nothing', async () => {
      const answer = await call(`${contracts}deals/scan.pdf/edit/`, owner);

      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', provider_error_code: 'non_office_edit_rejected' });
      expect(grantsTo('doc-owner').some((permission) => permission.itemPath.endsWith('scan.pdf'))).toBe(false);
    });

    it('answers 400 provider_operation_not_supported for objects of an object-store bucket', async () => {
      for (const action of ['view', 'edit']) {
        const answer = await call(`${plain}notes.docx/${action}/`, owner);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', provider_error_code: 'provider_operation_not_supported' });
      }
    });

    it('answers 409 library_site_not_ready while the site has no SharePoint library', async () => {
      const unready = await createStorageSite(app, admin, 'Unready Site');
      const objects = await createBucket(app, admin, unready, { name: 'Docs', storage_provider: 'document_library' });

      const stored = await sendBinary(app.url, 'PUT', `${objects}plan.docx`, {
        token: admin,
        headers: { ...unready.tenant, 'content-type': DOCX },
        body: 'plan',
      });

      expect(stored.status).toBe(409);
      expect(stored.json).toMatchObject({ code: 'CONFLICT', provider_error_code: 'library_site_not_ready' });
    });

    it('answers 502 BAD_REQUEST when the provider fails', async () => {
      standIn.failNext(/\/invite$/, 503, 1);

      const answer = await call(`${contracts}deals/offer.docx/view/`, owner);

      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ status: 'error', code: 'BAD_REQUEST' });
    });

    it('invites a user unknown to the provider as a silent guest and grants once the guest resolves', async () => {
      const guest = await siteUser(app, admin, site, 'doc-guest', ['view_site']);
      standIn.guestPropagation = 2;

      const answer = await call(`${published}handbook.docx/edit/`, guest);

      expect(answer.status).toBe(200);
      expect(standIn.state.invitations).toContainEqual(
        expect.objectContaining({ invitedUserEmailAddress: 'doc-guest@example.com', sendInvitationMessage: false }),
      );
      expect(grantsTo('doc-guest')).toEqual([expect.objectContaining({ roles: ['write'] })]);
    });

    it('answers 503 CONFLICT guest_invitation_propagation_timeout when the guest does not resolve in time', async () => {
      const slow = await siteUser(app, admin, site, 'doc-slow-guest', ['view_site']);
      standIn.guestPropagation = 'never';

      const answer = await call(`${published}handbook.docx/edit/`, slow);

      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ status: 'error', code: 'CONFLICT', provider_error_code: 'guest_invitation_propagation_timeout' });
      expect(answer.headers.get('retry-after')).not.toBeNull();
      expect(grantsTo('doc-slow-guest')).toEqual([]);
    });
  });

  describe('without Accept: application/json', () => {
    it('redirects to the loader with a ticket in the fragment, and grants only when the loader redeems it, once', async () => {
      const invites = () => standIn.callsMatching('POST', /\/invite$/).length;
      const invitesBefore = invites();

      const redirect = await call(`${contracts}deals/offer.docx/view/`, owner, { accept: 'text/html' });
      const invitesAfterRedirect = invites();
      const location = new URL(redirect.headers.get('location') ?? '');
      const ticket = new URLSearchParams(location.hash.slice(1)).get('ticket')!;
      const page = await app.request('GET', location.pathname);
      const redeemed = await app.request('POST', '/api/storage/document-loader/grant/', { body: { ticket } });
      const replayed = await app.request('POST', '/api/storage/document-loader/grant/', { body: { ticket } });

      expect(redirect.status).toBe(302);
      expect(location.pathname).toBe('/api/storage/document-loader/');
      expect(location.search).toBe('');
      expect(invitesAfterRedirect).toBe(invitesBefore);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(redeemed.status).toBe(200);
      expect(redeemed.body).toEqual({ status: 'success', message: expect.any(String), data: { url: expect.any(String), mode: 'view' } });
      expect(invites()).toBe(invitesBefore + 1);
      expect(replayed.status).toBe(401);
      expect(replayed.body.code).toBe('INVALID_TOKEN');
      expect(invites()).toBe(invitesBefore + 1);
    });

    it('sends an anonymous viewer of a public object through the loader to the anonymous link', async () => {
      const redirect = await call(`${published}handbook.docx/view/`, undefined, {});
      const ticket = new URLSearchParams(new URL(redirect.headers.get('location')!).hash.slice(1)).get('ticket')!;

      const redeemed = await app.request('POST', '/api/storage/document-loader/grant/', { body: { ticket } });

      expect(redirect.status).toBe(302);
      expect(standIn.state.permissions.find((permission) => permission.link?.webUrl === redeemed.body.data.url)?.link?.scope).toBe(
        'anonymous',
      );
    });

    it('issues no ticket for a request the rules refuse', async () => {
      const refused = await call(`${contracts}deals/scan.pdf/edit/`, owner, {});

      expect(refused.status).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      expect(refused.body.provider_error_code).toBe('non_office_edit_rejected');
    });

    it('refuses a ticket that is not one', async () => {
      const answer = await app.request('POST', '/api/storage/document-loader/grant/', { body: { ticket: 'not-a-ticket' } });

      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_TOKEN');
    });
  });

  describe('document-library buckets', () => {
    it('shows the provider on the bucket and refuses to change it', async () => {
      const bucketPath = contracts.replace(/objects\/$/, '');

      const detail = await app.request('GET', bucketPath, { token: admin, headers: site.tenant });
      const changed = await app.request('PATCH', bucketPath, {
        token: admin,
        headers: site.tenant,
        body: { storage_provider: 'object_store' },
      });

      expect(detail.body.storage_provider).toBe('document_library');
      expect(changed.status).toBe(400);
      expect(changed.body.errors.storage_provider).toBeDefined();
    });

    it('refuses a document-library bucket with 400 when no document library is configured', async () => {
      const configured = app.runtime.documentLibrary;
      app.runtime.documentLibrary = undefined;
      try {
        const refused = await app.request('POST', site.buckets, {
          token: admin,
          headers: site.tenant,
          body: { name: 'Nowhere', app_category: 'attachments', storage_provider: 'document_library' },
        });

        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR', provider_error_code: 'document_library_not_configured' });
      } finally {
        app.runtime.documentLibrary = configured;
      }
    });
  });
});
