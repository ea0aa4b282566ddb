// Finds a Tessera site's document library. Each site has a SharePoint site of its own, found by a
// naming rule (`GRAPH_SITE_PATH`, `/sites/tessera-{site}` by default, on `GRAPH_SITE_HOSTNAME`),
// whose default document library (its drive) holds the site's objects. A SharePoint site that does
// not exist yet, or has no drive yet, is "not ready" (409 `library_site_not_ready`): provisioning is
// done outside the platform and takes a while. Found drives are remembered for a few minutes.
import { LibrarySiteNotReadyError } from './document-library-errors.ts';
import { GraphResponseError, type GraphClient } from './graph-client.ts';

export interface LocatorSettings {
  siteHostname: string;
  sitePathTemplate: string;
}

const CACHE_MS = 10 * 60_000;

/** The server-relative path of a site's SharePoint site, each segment percent-encoded. */
export function sharePointSitePath(template: string, siteSlug: string): string {
  return template
    .replaceAll('{site}', siteSlug)
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

export class LibraryLocator {
  private readonly drives = new Map<string, { driveId: string; until: number }>();

  constructor(
    private readonly graph: GraphClient,
    private readonly settings: LocatorSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The drive id of the site's library; LibrarySiteNotReadyError while it is not provisioned. */
  async driveId(siteSlug: string): Promise<string> {
    const cached = this.drives.get(siteSlug);
    if (cached !== undefined && this.now() < cached.until) return cached.driveId;
    const sitePath = sharePointSitePath(this.settings.sitePathTemplate, siteSlug);
    const notReadyOn404 = (error: unknown): never => {
      if (error instanceof GraphResponseError && error.graphStatus === 404) throw new LibrarySiteNotReadyError();
      throw error;
    };
    const site = await this.graph
      .json<{ id: string }>('GET', `/sites/${encodeURIComponent(this.settings.siteHostname)}:${sitePath}?$select=id`)
      .catch(notReadyOn404);
    const drive = await this.graph.json<{ id: string }>('GET', `/sites/${site.id}/drive?$select=id`).catch(notReadyOn404);
    this.drives.set(siteSlug, { driveId: drive.id, until: this.now() + CACHE_MS });
    return drive.id;
  }
}
