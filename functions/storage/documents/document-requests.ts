// `/view/` and `/edit/` of a document-library object, and the loader's ticket redemption. With
// `Accept: application/json` the grant happens at once and the answer carries the document URL;
// otherwise the caller is sent (302, by the route) to the loader page with a single-use ticket for the same grant,
// which the page redeems in the background before opening the document.
import type { TokenIssuer } from '#shared/auth/tokens.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError } from '#shared/errors.ts';
import type { DocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import { tenantBySlug } from '#shared/tenancy/resolve-tenant.ts';
import { existingBucket } from '../buckets/bucket-service.ts';
import { normalizeObjectPath } from '../objects/object-keys.ts';
import { findObject } from '../objects/object-repository.ts';
import { bucketOfObjectRead } from '../objects/object-service.ts';
import type { ObjectParams } from '../objects/object-schemas.ts';
import type { StorageEnv } from '../storage-env.ts';
import {
  assertDocumentLibraryBucket,
  assertMayAct,
  assertReadable,
  planDocumentAccess,
  type DocumentAction,
} from './document-access-plan.ts';
import { grantDocumentAccess, type GrantedDocument } from './document-access-service.ts';
import { issueDocumentTicket, redeemDocumentTicket } from './document-tickets.ts';
import { loaderLocation } from './loader-page.ts';

export const LOADER_PATH = '/api/storage/document-loader/';
export const GRANT_PATH = '/api/storage/document-loader/grant/';

export interface DocumentEnv extends StorageEnv {
  tokens: TokenIssuer;
}

/** Whether the request's Accept header names `application/json` (parameters and case aside). */
export function acceptsJson(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => range.split(';', 1)[0]!.trim().toLowerCase() === 'application/json');
}

export async function openDocument(
  env: DocumentEnv,
  params: ObjectParams,
  action: DocumentAction,
  answer: 'json' | 'loader',
): Promise<{ granted: GrantedDocument } | { loaderUrl: string }> {
  assertMayAct(action, env.caller);
  const path = normalizeObjectPath(params.key, 'path');
  const bucket = await bucketOfObjectRead(env, params);
  const object = await findObject(env.db, env.site, bucket.id, path);
  assertReadable(bucket, object, env.caller);
  assertDocumentLibraryBucket(bucket);
  const grant = planDocumentAccess(action, bucket, object, env.caller);
  if (answer === 'json') {
    const document = { storageKey: object!.storage_key, mimetype: object!.mimetype };
    return { granted: await grantDocumentAccess(env.documentLibrary, env.site.slug, document, action, grant) };
  }
  const ticket = await issueDocumentTicket(env.tokens, {
    site: env.site.slug,
    app: bucket.app_slug,
    bucket: bucket.slug,
    path,
    action,
    grant,
  });
  return { loaderUrl: loaderLocation(env.origin, LOADER_PATH, ticket) };
}

/** The loader's background call: the ticket's grant, once, on the object as it is now. */
export async function redeemLoaderTicket(
  db: Queryable,
  tokens: TokenIssuer,
  documentLibrary: DocumentLibrary | undefined,
  token: string,
): Promise<GrantedDocument> {
  const ticket = await redeemDocumentTicket(db, tokens, token);
  const site = await tenantBySlug(db, ticket.site);
  if (site === undefined) throw new NotFoundError('Site not found.');
  const bucket = await existingBucket(db, site, ticket.app, ticket.bucket);
  assertDocumentLibraryBucket(bucket);
  const object = await findObject(db, site, bucket.id, ticket.path);
  if (object === undefined) throw new NotFoundError('Object not found.');
  return grantDocumentAccess(
    documentLibrary,
    site.slug,
    { storageKey: object.storage_key, mimetype: object.mimetype },
    ticket.action,
    ticket.grant,
  );
}
