// Who gets what from `/view/` and `/edit/`, decided before the provider is asked anything, under
// the object permission table of object-access.ts (objects a caller may not read do not exist for
// them: 404). A public object's view is an anonymous read-only link for anyone; a private object's
// view, and every edit, is a grant to the signed-in caller. Editing needs a signed-in member of the
// site (anonymous edit is refused first of all), and an Office document.
import { NotFoundError } from '#shared/errors.ts';
import {
  NonOfficeEditRejectedError,
  ProviderOperationNotSupportedError,
} from '#shared/storage/document-library/document-library-errors.ts';
import { isOfficeEditable } from '#shared/storage/document-library/office-types.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import { assertMayWrite, canRead, effectiveVisibility } from '../objects/object-access.ts';
import type { ObjectRow } from '../objects/object-repository.ts';
import type { StorageCaller } from '../storage-env.ts';

export type DocumentAction = 'view' | 'edit';

export type DocumentGrant = { kind: 'anonymous' } | { kind: 'user'; userId: number; email: string; displayName: string };

/** 400 `provider_operation_not_supported` unless the bucket keeps its bytes in a document library. */
export function assertDocumentLibraryBucket(bucket: Pick<BucketRow, 'storage_provider'>): void {
  if (bucket.storage_provider !== 'document_library') throw new ProviderOperationNotSupportedError();
}

/**
 * 404 unless the object exists and the caller may read it. Checked before anything is said about
 * the bucket (its provider): to a caller who may not read there, another site's buckets and those
 * that do not exist look the same (cross-tenant fuzz).
 */
export function assertReadable(
  bucket: Pick<BucketRow, 'visibility'>,
  object: Pick<ObjectRow, 'visibility' | 'created_by'> | undefined,
  caller: StorageCaller,
): asserts object is Pick<ObjectRow, 'visibility' | 'created_by'> {
  if (object === undefined || !canRead(caller, object, bucket)) throw new NotFoundError('Object not found.');
}

/** 401 for an anonymous edit, 403 for a caller without access to the site; nothing for a view. */
export function assertMayAct(action: DocumentAction, caller: StorageCaller): void {
  if (action === 'edit') assertMayWrite(caller);
}

/**
 * The grant for a caller on an object of a document-library bucket: 404 when the object is missing
 * or not readable by the caller, 400 `non_office_edit_rejected` for an edit of anything but an
 * Office document.
 */
export function planDocumentAccess(
  action: DocumentAction,
  bucket: Pick<BucketRow, 'visibility'>,
  object: Pick<ObjectRow, 'visibility' | 'created_by' | 'mimetype'> | undefined,
  caller: StorageCaller,
): DocumentGrant {
  assertReadable(bucket, object, caller);
  if (action === 'view' && effectiveVisibility(object, bucket) === 'public') return { kind: 'anonymous' };
  if (action === 'edit' && !isOfficeEditable(object.mimetype)) throw new NonOfficeEditRejectedError(object.mimetype);
  // Reading a private object took its owner (a signed-in member) or staff; editing, a member.
  const principal = caller.principal!;
  return { kind: 'user', userId: principal.id, email: principal.email, displayName: principal.username };
}
