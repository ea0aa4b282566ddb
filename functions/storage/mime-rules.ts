// MIME types in storage: the allow-list patterns of a bucket (`type/subtype`, `type/*`, `*/*`),
// the type an upload is stored with, and what a type means when served (active content that a
// browser would execute, Office documents that a document library can edit).
import mime from 'mime-types';

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
export function mimeTypeFromName(filename: string): string {
  const guessed = mime.lookup(filename);
  return guessed === false ? FALLBACK_MIME_TYPE : guessed;
}

/**
 * The type an upload is stored with: the one the client sent when it names a real type, else the
 * one its file name suggests. Undefined when the client sent something that is not a media type.
 */
export function uploadMimeType(sent: string | undefined, filename: string): string | undefined {
  if (sent === undefined || sent.trim() === '') return mimeTypeFromName(filename);
  const essence = mimeEssence(sent);
  if (essence === undefined) return undefined;
  return essence === FALLBACK_MIME_TYPE ? mimeTypeFromName(filename) : essence;
}

const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'text/x-javascript',
  'text/ecmascript',
  'application/ecmascript',
  'application/x-ecmascript',
  'text/jscript',
  'application/x-shockwave-flash',
  'multipart/x-mixed-replace',
]);

/** Types a browser executes or renders as a document that could run script: served as attachments. */
export function isActiveContent(mimetype: string): boolean {
  return ACTIVE_TYPES.has(mimetype) || mimetype.endsWith('+xml');
}

/** Word processing, spreadsheet and presentation types, which a browser edit mode supports. */
export { isOfficeEditable } from '#shared/storage/document-library/office-types.ts';
