// Performs a planned document grant through the site's document library: the link it gives, and
// whether it went to a person or is an anonymous view link.
import { DocumentLibraryNotConfiguredError } from '#shared/storage/document-library/document-library-errors.ts';
import type { DocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import type { DocumentLink } from '#shared/storage/document-library/document-sharing.ts';
import type { DocumentAction, DocumentGrant } from './document-access-plan.ts';

export interface StoredDocument {
  storageKey: string;
  mimetype: string;
}

export interface GrantedDocument {
  link: DocumentLink;
  /** No person behind the grant: an anonymous view link. */
  anonymous: boolean;
}

export async function grantDocumentAccess(
  library: DocumentLibrary | undefined,
  siteSlug: string,
  document: StoredDocument,
  action: DocumentAction,
  grant: DocumentGrant,
): Promise<GrantedDocument> {
  if (library === undefined) throw new DocumentLibraryNotConfiguredError();
  const { access } = library.forSite(siteSlug);
  const ref = { key: document.storageKey, mimetype: document.mimetype };
  const person = grant.kind === 'user' ? { email: grant.email, displayName: grant.displayName } : undefined;
  let link: DocumentLink;
  if (action === 'edit') {
    // The plan never makes an anonymous edit grant; this guards the adapter all the same.
    if (person === undefined) throw new Error('an edit grant needs a person');
    link = await access.editLink(ref, person);
  } else {
    link = await access.viewLink(ref, person ?? 'anonymous');
  }
  return { link, anonymous: person === undefined };
}
