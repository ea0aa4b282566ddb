// MIME types in storage: the allow-list patterns of a bucket (`type/subtype`, `type/*`, `*/*`),
// the type an upload is stored with, and what a type means when served (active content that a
// browser may show inline, Office documents that a document library can edit).
import { mimeTypeOfPath } from '#shared/http/mime-lookup.ts';

/** A pattern as the spec words it: alphanumeric start, then letters, digits, `-`, `+`, `.`. */
const NAME = '[A-Za-z0-9][A-Za-z0-9+.-]*';
const PATTERN = new RegExp(`^(?:\\*/\\*|${NAME}/\\*|${NAME}/${NAME})$`);

/** An HTTP media type's essence (RFC 9110 tokens), parameters allowed after `;`. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^\\s*(${TOKEN})/(${TOKEN})\\s*(?:;.*)?$`, 's');

export const FALLBACK_MIME_TYPE = 'application/octet-stream';

export function isMimePattern(value: string): boolean {
  return PATTERN.test(value);
}

/** `Text/HTML; charset=utf-8` → `text/html`; undefined when it is not a media type. */
export function mimeEssence(contentType: string): string | undefined {
  const match = MEDIA_TYPE.exec(contentType);
  if (match === null) return undefined;
  return `${match[1]}/${match[2]}`.toLowerCase();
}

/** Whether `mimetype` (an essence) is admitted by the patterns; an empty list admits every type. */
export function mimeTypeAllowed(mimetype: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  const [type] = mimetype.split('/', 1);
  return patterns.some((pattern) => {
    const lower = pattern.toLowerCase();
    return lower === '*/*' || lower === mimetype || lower === `${type}/*`;
  });
}

/** The type a file name suggests, for uploads that did not say (or said only octet-stream). */
export async function mimeTypeFromName(filename: string): Promise<string> {
  return (await mimeTypeOfPath(filename)) ?? FALLBACK_MIME_TYPE;
}

/**
 * The type an upload is stored with: the one the client sent when it names a real type, else the
 * one its file name suggests. Undefined when the client sent something that is not a media type,
 * or a wildcard.
 */
export async function uploadMimeType(sent: string | undefined, filename: string): Promise<string | undefined> {
  if (sent === undefined || sent.trim() === '') return mimeTypeFromName(filename);
  const essence = mimeEssence(sent);
  // A file has one type: `image/*` or `*/*` is a pattern, not what a file is.
  if (essence === undefined || essence.includes('*')) return undefined;
  return essence === FALLBACK_MIME_TYPE ? mimeTypeFromName(filename) : essence;
}

/**
 * Raster images a browser only ever paints; never SVG (a document that runs script). With every
 * audio and video type and plain text, the types a download may show in the browser.
 */
const INLINE_IMAGE_TYPES = new Set([
  'image/apng',
  'image/avif',
  'image/bmp',
  'image/gif',
  'image/heic',
  'image/heif',
  'image/jpeg',
  'image/png',
  'image/tiff',
  'image/vnd.microsoft.icon',
  'image/webp',
  'image/x-icon',
]);

/**
 * Whether a download of this type may be shown inline. Everything else (HTML, SVG, script, XML,
 * PDF, multipart/related, Office documents, unknown types) is served as an attachment under a
 * sandboxing CSP: an allow-list, so a type nobody thought of is never rendered on the API's host.
 */
export function servedInline(mimetype: string): boolean {
  const [type] = mimetype.split('/', 1);
  return INLINE_IMAGE_TYPES.has(mimetype) || type === 'audio' || type === 'video' || mimetype === 'text/plain';
}

/** Word processing, spreadsheet and presentation types, which a browser edit mode supports. */
export { isOfficeEditable } from '#shared/storage/document-library/office-types.ts';
