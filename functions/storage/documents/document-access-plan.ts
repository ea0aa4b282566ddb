// Who gets what from `/view/` and `/edit/`: the rules of the spec's document-library actions,
// decided before the provider is asked anything. A public object's view is an anonymous read-only
// link for anyone; a private object's view, and any edit, is a grant to the signed-in caller, who
// must be allowed to read (view) or update (edit) the object under the object permission table.
import type { Principal } from '#shared/auth/principal.ts';
import { AuthenticationFailedError, PermissionDeniedError } from '#shared/errors.ts';
import { NonOfficeEditRejectedError, ProviderOperationNotSupportedError } from '#shared/storage/document-library/document-library-errors.ts';
import { isOfficeEditable } from '#shared/storage/document-library/office-types.ts';

export type DocumentAction = 'view' | 'edit';

export interface DocumentSubject {
  storageProvider: string;
  /** The object's own visibility, else its bucket's. */
  visibility: 'public' | 'private';
  /** The object's `created_by`, its owner under the permission table. */
  ownerId: number | null;
  mimetype: string;
}

export type DocumentGrant =
  | { kind: 'anonymous' }
  | { kind: 'user'; userId: number; email: string; displayName: string };

/** Staff under the permission table: `is_staff` or a superuser. */
function ownsOrStaff(caller: Principal, subject: DocumentSubject): boolean {
  return caller.isStaff || caller.isSuperuser || (subject.ownerId !== null && subject.ownerId === caller.id);
}

function userGrant(caller: Principal): DocumentGrant {
  return { kind: 'user', userId: caller.id, email: caller.email, displayName: caller.username };
}

/**
 * The grant a caller gets, or the error the spec gives: 400 `provider_operation_not_supported`
 * outside document libraries, 401 for an anonymous caller where a person is needed, 403 without the
 * object permission, 400 `non_office_edit_rejected` for an edit of anything but an Office document.
 */
export function planDocumentAccess(action: DocumentAction, subject: DocumentSubject, caller: Principal | undefined): DocumentGrant {
  if (subject.storageProvider !== 'document_library') throw new ProviderOperationNotSupportedError();
  if (action === 'view' && subject.visibility === 'public') return { kind: 'anonymous' };
  if (caller === undefined) throw new AuthenticationFailedError();
  // Reading a private object and writing any object both need the owner or staff, except that
  // any signed-in user may write to a public object.
  if (subject.visibility === 'private' && !ownsOrStaff(caller, subject)) {
    throw new PermissionDeniedError(`You do not have permission to ${action} this document.`);
  }
  if (action === 'edit' && !isOfficeEditable(subject.mimetype)) throw new NonOfficeEditRejectedError(subject.mimetype);
  return userGrant(caller);
}
