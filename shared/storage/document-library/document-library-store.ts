// The object-store port over one site's document library: the bytes of a document-library bucket's
// objects live as files of the site's SharePoint drive, at their storage key's path.
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ByteRange, ObjectDownload, ObjectStore, PutOptions, StoredObjectInfo } from '../object-store.ts';
import { ObjectMissingError, RangeNotSatisfiableError, StorageUnavailableError } from '../storage-errors.ts';
import type { CopyMonitorSettings, Drive, DriveItem } from './drive.ts';
import { DEFAULT_UPLOAD_LIMITS, uploadToDrive, type UploadLimits } from './drive-upload.ts';
import { ProviderCommunicationError } from './document-library-errors.ts';

export interface StoreSettings {
  upload: UploadLimits;
  copy: CopyMonitorSettings;
}

export const DEFAULT_STORE_SETTINGS: StoreSettings = {
  upload: DEFAULT_UPLOAD_LIMITS,
  copy: { timeoutMs: 60_000, firstPollMs: 200 },
};

/** Graph's eTag is already quoted (`"{GUID},3"`); anything else is quoted here. */
function infoOf(item: DriveItem): StoredObjectInfo {
  const etag = item.eTag ?? `"${item.id}"`;
  return {
    size: item.size ?? 0,
    etag: etag.startsWith('"') ? etag : `"${etag}"`,
    lastModified: item.lastModifiedDateTime === undefined ? new Date(0) : new Date(item.lastModifiedDateTime),
    ...(item.file?.mimeType === undefined ? {} : { contentType: item.file.mimeType }),
  };
}

/** Cuts a whole-file stream down to a range, for a download URL that ignored the Range header. */
function slice(range: ByteRange): Transform {
  let position = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const start = Math.max(range.start - position, 0);
      const end = Math.min(range.end + 1 - position, chunk.length);
      position += chunk.length;
      callback(null, start < end ? chunk.subarray(start, end) : undefined);
    },
  });
}

export class DocumentLibraryStore implements ObjectStore {
  readonly provider = 'document_library' as const;

  constructor(
    /** The site's drive, located on first use (LibrarySiteNotReadyError while it is not provisioned). */
    private readonly drive: () => Promise<Drive>,
    private readonly settings: StoreSettings = DEFAULT_STORE_SETTINGS,
  ) {}

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObjectInfo> {
    const item = await uploadToDrive(await this.drive(), key, body, options, this.settings.upload);
    return { ...infoOf(item), contentType: options.contentType };
  }

  async get(key: string, asked?: ByteRange): Promise<ObjectDownload> {
    const drive = await this.drive();
    const item = await drive.item(key);
    const downloadUrl = item?.['@microsoft.graph.downloadUrl'];
    if (item === undefined || downloadUrl === undefined) throw new ObjectMissingError(key);
    const size = item.size ?? 0;
    if (asked !== undefined && asked.start >= size) throw new RangeNotSatisfiableError(size);
    // A range ending past the last byte is served up to the last byte, and says so.
    const range = asked === undefined ? undefined : { start: asked.start, end: Math.min(asked.end, size - 1) };
    // The download URL is pre-authenticated and short-lived: no token goes with it.
    const response = await drive.graph.call('GET', downloadUrl, {
      anonymous: true,
      untimed: true,
      ...(range === undefined ? {} : { headers: { range: `bytes=${range.start}-${range.end}` } }),
    });
    if (response.status === 404) throw new ObjectMissingError(key);
    if (response.status !== 200 && response.status !== 206) await drive.graph.failure(response, 'GET download');
    if (response.body === null) throw new ProviderCommunicationError(undefined, { cause: new Error('download without a body') });
    const stream = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    const body = range !== undefined && response.status === 200 ? stream.pipe(slice(range)) : stream;
    return { ...infoOf(item), body, ...(range === undefined ? {} : { range }) };
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    const item = await (await this.drive()).item(key);
    return item === undefined ? undefined : infoOf(item);
  }

  async copy(sourceKey: string, destinationKey: string): Promise<StoredObjectInfo> {
    const drive = await this.drive();
    const source = await drive.item(sourceKey);
    if (source === undefined) throw new ObjectMissingError(sourceKey);
    await drive.copy(source, destinationKey, this.settings.copy);
    const copied = await drive.item(destinationKey);
    if (copied === undefined) {
      throw new ProviderCommunicationError(undefined, {
        cause: new Error(`copy of ${sourceKey} completed but ${destinationKey} is missing`),
      });
    }
    return infoOf(copied);
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    let drive: Drive;
    try {
      drive = await this.drive();
    } catch (error) {
      throw new StorageUnavailableError('The document library is unavailable; try again.', { cause: error });
    }
    const { failed, cause } = await drive.deleteMany(keys);
    if (failed.length > 0) {
      throw new StorageUnavailableError(`Could not remove ${failed.length} of ${keys.length} documents; try again.`, { cause });
    }
  }
}
