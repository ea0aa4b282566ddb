// The spec's object permission table with DECISIONS' reading of it. An object's own visibility
// overrides its bucket's. Public objects: anyone reads (anonymous callers too), signed-in members of
// the site write. Private objects: their owner (created_by) and staff (is_staff or superuser) only,
// and to everyone else they do not exist (404, absent from lists). Writing always needs a signed-in
// caller with access to the site; a new path may be written by any such caller, who then owns it.
import { AuthenticationFailedError, ForbiddenError } from '#shared/errors.ts';
import type { BucketRow } from '../buckets/bucket-repository.ts';
import type { Visibility } from '../buckets/bucket-schemas.ts';
import type { StorageCaller } from '../storage-env.ts';
import type { ObjectRow } from './object-repository.ts';

export function effectiveVisibility(object: Pick<ObjectRow, 'visibility'>, bucket: Pick<BucketRow, 'visibility'>): Visibility {
  return object.visibility ?? bucket.visibility;
}

export function canRead(
  caller: StorageCaller,
  object: Pick<ObjectRow, 'visibility' | 'created_by'>,
  bucket: Pick<BucketRow, 'visibility'>,
): boolean {
  if (caller.staff || effectiveVisibility(object, bucket) === 'public') return true;
  return caller.userId !== undefined && object.created_by === caller.userId;
}

/** 401 for anonymous callers, 403 for signed-in callers without access to the site. */
export function assertMayWrite(
  caller: StorageCaller,
): asserts caller is StorageCaller & { principal: NonNullable<StorageCaller['principal']> } {
  if (caller.principal === undefined) throw new AuthenticationFailedError('Sign in to change objects.');
  if (!caller.member) throw new ForbiddenError('You do not have access to this site.');
}

/**
 * Listing and searching a bucket that is not public is for the site's members and staff, as
 * reading its bucket is: 401 for anonymous callers, 403 for signed-in callers without access to the
 * site, whether or not the bucket exists (no answer tells an outsider which private buckets exist).
 * A public bucket is listed to anyone, its public objects only.
 */
export function assertMayList(caller: StorageCaller, bucket: Pick<BucketRow, 'visibility'> | undefined): void {
  if (caller.member || caller.staff || bucket?.visibility === 'public') return;
  if (caller.principal === undefined) throw new AuthenticationFailedError('Sign in to list the objects of this bucket.');
  throw new ForbiddenError('You do not have access to this site.');
}

/** For a member, seeing an object and changing it are the same right. */
export function canWrite(
  caller: StorageCaller,
  object: Pick<ObjectRow, 'visibility' | 'created_by'>,
  bucket: Pick<BucketRow, 'visibility'>,
): boolean {
  return caller.member && canRead(caller, object, bucket);
}
