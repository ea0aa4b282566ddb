import { describe, expect, it } from 'vitest';
import type { Principal } from '#shared/auth/principal.ts';
import { AuthenticationFailedError, ForbiddenError, NotFoundError } from '#shared/errors.ts';
import {
  NonOfficeEditRejectedError,
  ProviderOperationNotSupportedError,
} from '#shared/storage/document-library/document-library-errors.ts';
import { assertDocumentLibraryBucket, assertMayAct, planDocumentAccess } from '#functions/storage/documents/document-access-plan.ts';
import { storageCaller } from '#functions/storage/storage-env.ts';

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

const owner = storageCaller(principal(1), true);
const member = storageCaller(principal(2), true);
const outsider = storageCaller(principal(5), false);
const staff = storageCaller(principal(3, { isStaff: true }), true);
const superuser = storageCaller(principal(4, { isSuperuser: true }), true);
const anonymous = storageCaller(undefined, false);

const privateBucket = { visibility: 'private' as const };
const publicBucket = { visibility: 'public' as const };
const document = (overrides: Partial<{ visibility: 'public' | 'private' | null; mimetype: string }> = {}) => ({
  visibility: null,
  created_by: 1,
  mimetype: DOCX,
  ...overrides,
});

describe('document access plan', () => {
  it('gives every caller an anonymous link to view a public object, by its own or its bucket visibility', () => {
    for (const caller of [anonymous, outsider, member, owner]) {
      expect(planDocumentAccess('view', publicBucket, document(), caller)).toEqual({ kind: 'anonymous' });
      expect(planDocumentAccess('view', privateBucket, document({ visibility: 'public' }), caller)).toEqual({ kind: 'anonymous' });
    }
  });

  it('grants the owner, staff and superusers per-user access to a private object', () => {
    for (const caller of [owner, staff, superuser]) {
      for (const action of ['view', 'edit'] as const) {
        expect(planDocumentAccess(action, privateBucket, document(), caller)).toEqual({
          kind: 'user',
          userId: caller.principal!.id,
          email: caller.principal!.email,
          displayName: caller.principal!.username,
        });
      }
    }
  });

  it('hides a private object from everyone else, and a missing object from all, as 404', () => {
    for (const caller of [anonymous, outsider, member]) {
      expect(() => planDocumentAccess('view', publicBucket, document({ visibility: 'private' }), caller)).toThrow(NotFoundError);
    }
    expect(() => planDocumentAccess('view', publicBucket, undefined, owner)).toThrow(NotFoundError);
  });

  it('lets any member edit a public object with a per-user grant', () => {
    expect(planDocumentAccess('edit', publicBucket, document(), member)).toMatchObject({ kind: 'user', userId: 2 });
  });

  it('refuses an anonymous edit with 401 and an edit by a caller without site access with 403', () => {
    expect(() => assertMayAct('edit', anonymous)).toThrow(AuthenticationFailedError);
    expect(() => assertMayAct('edit', outsider)).toThrow(ForbiddenError);
    expect(() => assertMayAct('view', anonymous)).not.toThrow();
  });

  it('refuses to edit anything but an Office document, even for its owner', () => {
    expect(() => planDocumentAccess('edit', privateBucket, document({ mimetype: 'application/pdf' }), owner)).toThrow(
      NonOfficeEditRejectedError,
    );
    expect(planDocumentAccess('view', privateBucket, document({ mimetype: 'application/pdf' }), owner)).toMatchObject({ kind: 'user' });
  });

  it('answers provider_operation_not_supported for object-store buckets', () => {
    expect(() => assertDocumentLibraryBucket({ storage_provider: 'object_store' })).toThrow(ProviderOperationNotSupportedError);
    expect(() => assertDocumentLibraryBucket({ storage_provider: 'document_library' })).not.toThrow();
  });
});
