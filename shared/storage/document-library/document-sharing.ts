// View and edit links of a document-library object. A public object's view is an anonymous
// read-only sharing link; every other view, and every edit, is a per-user grant on the item
// (`invite` with role read or write, sign-in required, no mail sent) that opens the document's own
// URL. Asking again refreshes the grant: Graph answers the existing permission.
import { ObjectMissingError } from '../storage-errors.ts';
import { NonOfficeEditRejectedError, ProviderCommunicationError } from './document-library-errors.ts';
import type { Drive, DriveItem } from './drive.ts';
import type { DocumentUser, GuestDirectory } from './guest-directory.ts';
import { isOfficeEditable } from './office-types.ts';

export type { DocumentUser } from './guest-directory.ts';

export interface DocumentRef {
  /** The object's storage key in the library. */
  key: string;
  mimetype: string;
}

export type DocumentMode = 'view' | 'edit';

export interface DocumentLink {
  url: string;
  mode: DocumentMode;
}

/** The document-access side of a document library, beside the object-store port for its bytes. */
export interface DocumentAccess {
  /** `anonymous` gets an anonymous read-only link; a user gets a per-user read grant. */
  viewLink(object: DocumentRef, viewer: DocumentUser | 'anonymous'): Promise<DocumentLink>;
  /** A per-user restricted edit grant; only for Office-editable types. */
  editLink(object: DocumentRef, user: DocumentUser): Promise<DocumentLink>;
}

export class DocumentSharing implements DocumentAccess {
  constructor(
    private readonly drive: () => Promise<Drive>,
    private readonly directory: GuestDirectory,
  ) {}

  private async itemOf(object: DocumentRef): Promise<{ drive: Drive; item: DriveItem }> {
    const drive = await this.drive();
    const item = await drive.item(object.key);
    if (item === undefined) throw new ObjectMissingError(object.key);
    return { drive, item };
  }

  private async grant(object: DocumentRef, user: DocumentUser, role: 'read' | 'write'): Promise<string> {
    const { drive, item } = await this.itemOf(object);
    await this.directory.resolve(user);
    await drive.graph.json('POST', `/drives/${drive.id}/items/${item.id}/invite`, {
      json: { recipients: [{ email: user.email }], roles: [role], requireSignIn: true, sendInvitation: false },
    });
    if (item.webUrl === undefined) throw new ProviderCommunicationError(undefined, { cause: new Error(`item ${item.id} has no webUrl`) });
    return item.webUrl;
  }

  async viewLink(object: DocumentRef, viewer: DocumentUser | 'anonymous'): Promise<DocumentLink> {
    if (viewer !== 'anonymous') return { url: await this.grant(object, viewer, 'read'), mode: 'view' };
    const { drive, item } = await this.itemOf(object);
    const permission = await drive.graph.json<{ link: { webUrl: string } }>('POST', `/drives/${drive.id}/items/${item.id}/createLink`, {
      json: { type: 'view', scope: 'anonymous' },
    });
    return { url: permission.link.webUrl, mode: 'view' };
  }

  async editLink(object: DocumentRef, user: DocumentUser): Promise<DocumentLink> {
    // Refused before the provider is asked anything, so a non-Office object never gets a grant.
    if (!isOfficeEditable(object.mimetype)) throw new NonOfficeEditRejectedError(object.mimetype);
    return { url: await this.grant(object, user, 'write'), mode: 'edit' };
  }
}
