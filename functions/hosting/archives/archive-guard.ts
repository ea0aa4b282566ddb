// The limits of one uploaded archive, checked while its bytes stream: the archive's own size, the
// number of entries, each file's and all files' unpacked size, and the unpacked-to-packed ratio
// (a decompression bomb is refused after its first megabyte, not after filling the disk).
import { Transform, type TransformCallback } from 'node:stream';
import type { ArchiveLimits } from '#shared/config.ts';
import { refusedArchive } from './entry-paths.ts';

/** Below this many unpacked bytes the ratio is not judged: small, very compressible files are fine. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

export class ArchiveGuard {
  private entryCount = 0;
  private packedBytes = 0;
  private unpackedBytes = 0;

  constructor(readonly limits: ArchiveLimits) {}

  /** Counts one more entry of any kind (directories and refused ones included). */
  countEntry(): void {
    this.entryCount += 1;
    if (this.entryCount > this.limits.entries) throw refusedArchive(`The archive has more than ${this.limits.entries} entries.`);
  }

  /** Refuses a zip entry whose declared sizes break a limit, before a byte of it is unpacked. */
  checkDeclared(path: string, packed: number, unpacked: number): void {
    if (unpacked > this.limits.fileBytes) throw this.fileTooLarge(path);
    if (unpacked > RATIO_FLOOR_BYTES && unpacked > this.limits.compressionRatio * Math.max(packed, 1)) throw this.bomb();
  }

  /** Counts the archive's bytes as they arrive (before any gunzip). */
  packedMeter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) => {
        this.packedBytes += chunk.length;
        if (this.packedBytes > this.limits.archiveBytes)
          callback(refusedArchive(`The archive is larger than ${this.limits.archiveBytes} bytes.`));
        else callback(null, chunk);
      },
    });
  }

  /** Sets the packed size when the archive was received whole first (zip). */
  setPackedBytes(bytes: number): void {
    this.packedBytes = bytes;
  }

  /** Counts one file's unpacked bytes as they stream to the store, failing at the first broken limit. */
  fileMeter(path: string): Transform {
    let fileBytes = 0;
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) => {
        fileBytes += chunk.length;
        this.unpackedBytes += chunk.length;
        if (fileBytes > this.limits.fileBytes) callback(this.fileTooLarge(path));
        else if (this.unpackedBytes > this.limits.totalBytes)
          callback(refusedArchive(`The archive unpacks to more than ${this.limits.totalBytes} bytes.`));
        else if (
          this.unpackedBytes > RATIO_FLOOR_BYTES &&
          this.unpackedBytes > this.limits.compressionRatio * Math.max(this.packedBytes, 1)
        )
          callback(this.bomb());
        else callback(null, chunk);
      },
    });
  }

  private fileTooLarge(path: string): Error {
    return refusedArchive(`The file ${JSON.stringify(path)} unpacks to more than ${this.limits.fileBytes} bytes.`);
  }

  private bomb(): Error {
    return refusedArchive(`The archive unpacks to more than ${this.limits.compressionRatio} times its size (a decompression bomb?).`);
  }
}
