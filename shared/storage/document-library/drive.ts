// One SharePoint document library (a Graph drive) addressed by storage key: item metadata, folders,
// server-side copy and batched deletes, with the real Graph paths (`/drives/{id}/root:/{path}`).
import { GraphResponseError, type GraphClient } from './graph-client.ts';
import { ProviderCommunicationError } from './document-library-errors.ts';

export interface DriveItem {
  id: string;
  name: string;
  size?: number;
  eTag?: string;
  lastModifiedDateTime?: string;
  webUrl?: string;
  file?: { mimeType?: string };
  folder?: { childCount?: number };
  '@microsoft.graph.downloadUrl'?: string;
}

/** Characters SharePoint refuses in names, and the ones that break path addressing. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: SharePoint refuses control characters in names; finding them is the point.
const FORBIDDEN = /["*:<>?\\|#%\u0000-\u001f]/;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'g');

/** `a/b c.docx` → `/a/b%20c.docx`; a key SharePoint could not name is a programming error. */
export function drivePath(key: string): string {
  const segments = key.split('/');
  for (const segment of segments) {
    if (
      segment === '' ||
      segment === '.' ||
      segment === '..' ||
      FORBIDDEN.test(segment) ||
      segment.trim() !== segment ||
      segment.endsWith('.')
    ) {
      throw new Error(`Storage key cannot name a document-library item: ${JSON.stringify(key)}`);
    }
  }
  return `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

const MAX_NAME_LENGTH = 120;

/**
 * A file name SharePoint accepts and shows, made from a client's: forbidden characters become `_`,
 * leading and trailing spaces and dots go, a long name is cut keeping its extension (Office opens a
 * document by its extension). Never empty, `.` or `..`.
 */
export function libraryFileName(filename: string): string {
  const cleaned = filename
    .replace(/[/]/g, '_')
    .replace(FORBIDDEN_ALL, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  if (cleaned === '') return 'document';
  if (cleaned.length <= MAX_NAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  return `${cleaned.slice(0, MAX_NAME_LENGTH - extension.length).replace(/[\s.]+$/, '')}${extension}`;
}

/** Graph batches hold at most 20 requests. */
const BATCH_SIZE = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface CopyMonitorSettings {
  /** How long a server-side copy may take before the call gives up. */
  timeoutMs: number;
  firstPollMs: number;
}

export class Drive {
  constructor(
    readonly graph: GraphClient,
    readonly id: string,
  ) {}

  /** The item addressed by path; append `:/content`, `:/createUploadSession` for actions. */
  itemPath(key: string): string {
    return `/drives/${this.id}/root:${drivePath(key)}`;
  }

  /** The item's metadata (with its pre-authenticated download URL), or undefined when missing. */
  async item(key: string): Promise<DriveItem | undefined> {
    try {
      return await this.graph.json<DriveItem>('GET', this.itemPath(key));
    } catch (error) {
      if (error instanceof GraphResponseError && error.graphStatus === 404) return undefined;
      throw error;
    }
  }

  /** The id of the folder at `folderKey` (the drive root for ''), creating missing folders. */
  async folderId(folderKey: string): Promise<string> {
    if (folderKey === '') return (await this.graph.json<DriveItem>('GET', `/drives/${this.id}/root?$select=id`)).id;
    const existing = await this.item(folderKey);
    if (existing !== undefined) return existing.id;
    const cut = folderKey.lastIndexOf('/');
    const parentId = await this.folderId(cut < 0 ? '' : folderKey.slice(0, cut));
    try {
      const created = await this.graph.json<DriveItem>('POST', `/drives/${this.id}/items/${parentId}/children`, {
        json: { name: folderKey.slice(cut + 1), folder: {}, '@microsoft.graph.conflictBehavior': 'fail' },
      });
      return created.id;
    } catch (error) {
      // Created by a concurrent call in between: use theirs.
      if (error instanceof GraphResponseError && error.graphStatus === 409) {
        const raced = await this.item(folderKey);
        if (raced !== undefined) return raced.id;
      }
      throw error;
    }
  }

  /**
   * Copies an item inside the drive, replacing the destination. Graph copies asynchronously: it
   * answers 202 with a monitor URL that is polled until the copy completes.
   */
  async copy(source: DriveItem, destinationKey: string, monitor: CopyMonitorSettings): Promise<void> {
    drivePath(destinationKey); // refuses a key SharePoint cannot name before anything is created
    const cut = destinationKey.lastIndexOf('/');
    const parentId = await this.folderId(cut < 0 ? '' : destinationKey.slice(0, cut));
    const started = await this.graph.call('POST', `/drives/${this.id}/items/${source.id}/copy?@microsoft.graph.conflictBehavior=replace`, {
      json: { parentReference: { driveId: this.id, id: parentId }, name: destinationKey.slice(cut + 1) },
    });
    if (started.status !== 202) await this.graph.failure(started, 'POST copy');
    await started.body?.cancel();
    const location = started.headers.get('location');
    if (location === null) throw new ProviderCommunicationError(undefined, { cause: new Error('copy answered without a monitor URL') });
    await this.awaitCopy(location, monitor);
  }

  private async awaitCopy(monitorUrl: string, settings: CopyMonitorSettings): Promise<void> {
    const deadline = Date.now() + settings.timeoutMs;
    let pause = settings.firstPollMs;
    for (;;) {
      // A finished copy may answer 303 to the new item: that is completion too.
      const response = await this.graph.call('GET', monitorUrl, { anonymous: true, redirect: 'manual' });
      if (response.status === 303) return;
      if (!response.ok) await this.graph.failure(response, 'GET copy monitor');
      const status = ((await response.json()) as { status?: string }).status;
      if (status === 'completed') return;
      if (status === 'failed' || status === 'cancelled') {
        throw new ProviderCommunicationError('The document library could not copy the document.', {
          cause: new Error(`copy monitor reported ${status}`),
        });
      }
      if (Date.now() + pause > deadline) {
        throw new ProviderCommunicationError('The document library did not finish the copy in time.', {
          cause: new Error(`copy still ${status} after ${settings.timeoutMs} ms`),
        });
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 2000);
    }
  }

  /**
   * Deletes items by key through JSON batches of 20; a missing item is not an error. Answers the
   * keys whose delete failed (the whole batch's, when a batch call itself fails).
   */
  async deleteMany(keys: readonly string[]): Promise<{ failed: string[]; cause?: unknown }> {
    const failed: string[] = [];
    let cause: unknown;
    for (let start = 0; start < keys.length; start += BATCH_SIZE) {
      const batch = keys.slice(start, start + BATCH_SIZE);
      const requests = batch.map((key, index) => ({ id: String(index), method: 'DELETE', url: this.itemPath(key) }));
      try {
        const answer = await this.graph.json<{ responses: Array<{ id: string; status: number }> }>('POST', '/$batch', {
          json: { requests },
        });
        const statuses = new Map(answer.responses.map((response) => [response.id, response.status]));
        batch.forEach((key, index) => {
          const status = statuses.get(String(index));
          if (status === undefined || (status >= 300 && status !== 404)) {
            failed.push(key);
            cause ??= new Error(`DELETE ${key} answered ${status ?? 'nothing'} in a batch`);
          }
        });
      } catch (error) {
        failed.push(...batch);
        cause ??= error;
      }
    }
    return { failed, cause };
  }
}
