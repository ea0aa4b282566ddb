// What the archive readers hand on for each file entry: its checked path and its unpacked bytes,
// already counted against the archive's limits.
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ArchiveFile {
  /** The checked path inside the build, by segment. */
  segments: string[];
  body: Readable;
}

/** Receives one file at a time and resolves once its bytes are stored. */
export type ArchiveFileSink = (file: ArchiveFile) => Promise<void>;

/**
 * The entry's bytes through its meter. A failure on either side (a broken limit, a corrupt entry)
 * destroys the meter with that error, which is what its reader then sees.
 */
export function meteredBody(source: Readable | AsyncIterable<Buffer>, meter: Transform): Readable {
  pipeline(source, meter).catch(() => undefined);
  return meter;
}
