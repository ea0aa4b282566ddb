// What an upload's bytes are, whatever it claims: the first bytes are read off the stream (never the
// whole body) and their signature identified by `file-type`; the type the upload is stored with
// must agree with them, and both must be in the bucket's allow-list. An image whose bytes are an
// executable, a PDF named `.png`, a ZIP sent as text: refused with the upload error (400).
import { Readable } from 'node:stream';
import { ValidationError } from '#shared/errors.ts';
import { extensionsOfMimeType } from '#shared/http/mime-lookup.ts';
import { lazyImport } from '#shared/lazy-import.ts';
import type { BucketRow } from './buckets/bucket-repository.ts';
import { FALLBACK_MIME_TYPE, mimeEssence, mimeTypeAllowed } from './mime-rules.ts';

/** file-type and its parsers (some 100 KB) load with the first upload whose bytes are checked. */
const loadFileType = lazyImport(() => import('file-type'));

/** file-type's own sample size: every signature it knows lies within these bytes. */
export const SIGNATURE_SAMPLE_BYTES = 4100;

export interface DetectedType {
  /** Essence, parameters dropped (`audio/ogg; codecs=opus` → `audio/ogg`). */
  mime: string;
  ext: string;
}

/** The type the signature at the start of `head` names; undefined for text and unknown formats. */
export async function detectType(head: Uint8Array): Promise<DetectedType | undefined> {
  if (head.length === 0) return undefined;
  // A parser failure on odd bytes means "unknown", never a failed upload.
  const { fileTypeFromBuffer } = await loadFileType();
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found === undefined) return undefined;
  return { mime: mimeEssence(found.mime) ?? found.mime, ext: found.ext };
}

/**
 * Reads the first `sampleSize` bytes (a little more when a chunk ends past them) and answers them
 * with a stream of the whole body, those bytes first. The rest is not read until the new stream
 * is; destroying the new stream destroys the original.
 */
export async function sniffStream(stream: Readable, sampleSize = SIGNATURE_SAMPLE_BYTES): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < sampleSize) {
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(chunks);
  async function* whole(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      }
    } finally {
      // Stopped early (refused, over the size limit): the original goes too.
      if (!stream.readableEnded) stream.destroy();
    }
  }
  return { head, stream: Readable.from(whole(), { objectMode: false }) };
}

/** Other names of one type, as clients send them. */
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/apng': 'image/png',
  'image/x-ms-bmp': 'image/bmp',
  'image/x-icon': 'image/vnd.microsoft.icon',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'application/x-zip-compressed': 'application/zip',
  'application/x-pdf': 'application/pdf',
};

const canonical = (type: string): string => ALIASES[type] ?? type;

/** ZIP containers: a signature check often sees only the ZIP, or one kind for another. */
const ZIP_FAMILY = new Set(['zip', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'odg', 'epub', 'jar', 'apk', 'xpi', '3mf', 'vsdx', 'kmz']);

async function isZipFamily(type: string): Promise<boolean> {
  return type === 'application/zip' || (await extensionsOfMimeType(type)).some((ext) => ZIP_FAMILY.has(ext));
}

/** Raster images (not SVG), and audio and video, whose subtypes name codecs and containers loosely. */
function kindOf(type: string): 'raster' | 'media' | undefined {
  const [top] = type.split('/', 1);
  if (top === 'audio' || top === 'video') return 'media';
  if (top === 'image' && type !== 'image/svg+xml') return 'raster';
  return undefined;
}

/** Whether the bytes (detected) can be what the upload says it is (declared). */
export async function typesAgree(declared: string, detected: DetectedType): Promise<boolean> {
  if (canonical(declared) === canonical(detected.mime)) return true;
  if ((await extensionsOfMimeType(declared)).includes(detected.ext)) return true;
  if (ZIP_FAMILY.has(detected.ext) && (await isZipFamily(declared))) return true;
  const kind = kindOf(declared);
  if (kind !== undefined && kind === kindOf(detected.mime)) return true;
  // XML documents (SVG, feeds) start with an XML declaration; text files may hold a calendar or a card.
  if (detected.mime === 'application/xml' && (declared === 'text/xml' || declared.endsWith('+xml'))) return true;
  return declared === 'text/plain' && detected.mime.startsWith('text/');
}

/**
 * The type to store for bytes that start with `head`: the declared one (already in the allow-list)
 * when the bytes agree with it, the detected one when the upload named no type of its own
 * (`application/octet-stream`). 400 when the bytes contradict the declared type or their own type
 * is outside the bucket's allow-list.
 */
export async function checkedMimeType(declared: string, head: Uint8Array, bucket: Pick<BucketRow, 'allowed_mime_types'>): Promise<string> {
  const detected = await detectType(head);
  if (detected === undefined) return declared;
  const stored = declared === FALLBACK_MIME_TYPE ? detected.mime : declared;
  if (stored !== detected.mime && !(await typesAgree(stored, detected))) {
    throw new ValidationError(`The file's content is ${detected.mime} (.${detected.ext}), not the declared ${stored}.`, {
      extras: { detected_mime_type: detected.mime },
    });
  }
  // A bare ZIP signature under an Office or other ZIP-based type says no more than "a ZIP".
  const generic = detected.mime === 'application/zip' && (await isZipFamily(stored));
  const checked = generic ? stored : detected.mime;
  if (!mimeTypeAllowed(checked, bucket.allowed_mime_types) || !mimeTypeAllowed(stored, bucket.allowed_mime_types)) {
    throw new ValidationError(
      `File type "${checked}" is not allowed in this bucket. Allowed types: ${bucket.allowed_mime_types.join(', ')}.`,
      { extras: { allowed_mime_types: bucket.allowed_mime_types, detected_mime_type: detected.mime } },
    );
  }
  return stored;
}
