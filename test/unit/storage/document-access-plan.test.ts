import { describe, expect, it } from 'vitest';
import type { Principal } from '#shared/auth/principal.ts';
import { AuthenticationFailedError, PermissionDeniedError } from '#shared/errors.ts';
import { NonOfficeEditRejectedError, ProviderOperationNotSupportedError } from '#shared/storage/document-library/document-library-errors.ts';
import { planDocumentAccess, type DocumentSubject } from '#functions/storage/documents/document-access-plan.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function principal(id: number, flags: Partial<Pick<Principal, 'isStaff' | 'isSuperuser'>> = {}): Principal {
  return {
    id,
    uuid: `00000000-0000-4000-8000-00000000000${id}`,
    username: `user${id}`,
    email: `user${id}@example.com`,
    isStaff: false,
    isSuperuser: false,
    permissions: new Set(),
    tokenId: 'jti',
    tokenExpiresAt: new Date(),
    ...flags,
  };
}

const owner = principal(1);
const stranger = principal(2);
const staff = principal(3, { isStaff: true });
const superuser = principal(4, { isSuperuser: true });

function subject(overrides: Partial<DocumentSubject> = {}): DocumentSubject {
  return { storageProvider: 'document_library', visibility: 'private', ownerId: owner.id, mimetype: DOCX, ...overrides };
}

describe('document access plan', () => {
  it('gives everyone, signed in or not, an anonymous link to view a public object', () => {
    for (const caller of [undefined, stranger, owner]) {
      expect(planDocumentAccess('view', subject({ visibility: 'public' }), caller)).toEqual({ kind: 'anonymous' });
    }
  });

  it('grants the owner, staff and superusers per-user access to a private object', () => {
    for (const caller of [owner, staff, superuser]) {
      for (const action of ['view', 'edit'] as const) {
        expect(planDocumentAccess(action, subject(), caller)).toEqual({ kind: 'user', userId: caller.id, email: caller.email, displayName: caller.username });
      }
    }
  });

  it('refuses a private object to other users with 403 and to anonymous callers with 401', () => {
    expect(() => planDocumentAccess('view', subject(), stranger)).toThrow(PermissionDeniedError);
    expect(() => planDocumentAccess('edit', subject(), stranger)).toThrow(PermissionDeniedError);
    expect(() => planDocumentAccess('view', subject(), undefined)).toThrow(AuthenticationFailedError);
  });

  it('lets any signed-in user edit a public object with a per-user grant, and no anonymous caller', () => {
    expect(planDocumentAccess('edit', subject({ visibility: 'public' }), stranger)).toMatchObject({ kind: 'user', userId: stranger.id });
    expect(() => planDocumentAccess('edit', subject({ visibility: 'public' }), undefined)).toThrow(AuthenticationFailedError);
  });

  it('refuses to edit anything but an Office document, even for its owner', () => {
    expect(() => planDocumentAccess('edit', subject({ mimetype: 'application/pdf' }), owner)).toThrow(NonOfficeEditRejectedError);
    expect(planDocumentAccess('view', subject({ mimetype: 'application/pdf' }), owner)).toMatchObject({ kind: 'user' });
  });

  it('answers provider_operation_not_supported for object-store objects before anything else', () => {
    for (const action of ['view', 'edit'] as const) {
      expect(() => planDocumentAccess(action, subject({ storageProvider: 'object_store', visibility: 'public' }), undefined)).toThrow(ProviderOperationNotSupportedError);
    }
  });
});
