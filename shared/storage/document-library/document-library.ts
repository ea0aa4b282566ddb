// Document libraries of the platform's sites (Microsoft Graph), built once per process from
// configuration. A site's library gives the object-store port for its objects' bytes and the
// document access (view and edit links) that object-store buckets do not have.
import type { DocumentLibraryConfig } from '#shared/config.ts';
import { readSecret } from '#shared/secrets/secret-store.ts';
import type { ObjectStore } from '../object-store.ts';
import { DocumentLibraryStore, DEFAULT_STORE_SETTINGS, type StoreSettings } from './document-library-store.ts';
import { DocumentSharing, type DocumentAccess } from './document-sharing.ts';
import { Drive } from './drive.ts';
import { GraphClient } from './graph-client.ts';
import { GuestDirectory } from './guest-directory.ts';
import { LibraryLocator } from './library-locator.ts';

export interface SiteDocumentLibrary {
  /** Bytes of the site's document-library objects (`provider: 'document_library'`). */
  store: ObjectStore;
  access: DocumentAccess;
}

export class DocumentLibrary {
  private readonly graph: GraphClient;
  private readonly locator: LibraryLocator;
  private readonly directory: GuestDirectory;

  constructor(
    config: DocumentLibraryConfig,
    private readonly storeSettings: StoreSettings = DEFAULT_STORE_SETTINGS,
  ) {
    let secret: Promise<string> | undefined;
    const { value, secretArn } = config.clientSecret;
    this.graph = new GraphClient({
      apiUrl: config.apiUrl,
      tokenUrl: config.tokenUrl,
      clientId: config.clientId,
      clientSecret: () => (secret ??= value !== undefined ? Promise.resolve(value) : readSecret(secretArn!)),
      requestTimeoutMs: config.requestTimeoutMs,
    });
    this.locator = new LibraryLocator(this.graph, config);
    this.directory = new GuestDirectory(this.graph, config);
  }

  /** The library of one site (by slug); its drive is located on first use. */
  forSite(siteSlug: string): SiteDocumentLibrary {
    const drive = async () => new Drive(this.graph, await this.locator.driveId(siteSlug));
    return { store: new DocumentLibraryStore(drive, this.storeSettings), access: new DocumentSharing(drive, this.directory) };
  }
}
