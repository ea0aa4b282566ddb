// Object paths (the bucket-relative `{key}` of the URLs and the paths in bodies) and file names.
// A path is normalised (NFC, duplicate slashes collapsed, a trailing slash dropped) and refused when
// it could mean anything but a plain name under the bucket: `..` or `.` segments, a leading `/`,
// backslashes, NUL and other control characters. Storage keys never come from these paths, so this
// is about clear names for clients, not the only wall around the store.
import { ValidationError } from '#shared/errors.ts';

export const MAX_PATH_LENGTH = 1024;
export const MAX_FILENAME_LENGTH = 255;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

export class InvalidObjectPathError extends ValidationError {
  constructor(field: string, reason: string) {
    super(`Invalid ${field}: ${reason}.`, { fieldErrors: { [field]: [`${reason[0]!.toUpperCase()}${reason.slice(1)}.`] } });
  }
}

function refuseUnsafeCharacters(value: string, field: string): void {
  if (CONTROL_CHARACTERS.test(value)) throw new InvalidObjectPathError(field, 'control characters (such as NUL) are not allowed');
  if (value.includes('\\')) throw new InvalidObjectPathError(field, 'backslashes are not allowed');
}

/** The canonical form of an object path, or InvalidObjectPathError (400) naming `field`. */
export function normalizeObjectPath(raw: string, field = 'path'): string {
  const value = raw.normalize('NFC');
  refuseUnsafeCharacters(value, field);
  if (value.startsWith('/')) throw new InvalidObjectPathError(field, 'absolute paths (starting with "/") are not allowed');
  const path = value.replace(/\/{2,}/g, '/').replace(/\/$/, '');
  if (path === '') throw new InvalidObjectPathError(field, 'the path is empty');
  if (path.length > MAX_PATH_LENGTH) throw new InvalidObjectPathError(field, `the path is longer than ${MAX_PATH_LENGTH} characters`);
  for (const segment of path.split('/')) {
    if (segment === '..' || segment === '.') throw new InvalidObjectPathError(field, '"." and ".." segments are not allowed');
    if (segment.length > MAX_FILENAME_LENGTH) {
      throw new InvalidObjectPathError(field, `a path segment is longer than ${MAX_FILENAME_LENGTH} characters`);
    }
  }
  return path;
}

/**
 * Last segments that name an action of the object before them: GET `<key>/view` and `<key>/edit`
 * reach the document-library routes (the router finds every route with or without its trailing
 * slash), so an object stored there could never be downloaded.
 */
const RESERVED_LAST_SEGMENTS = new Set(['view', 'edit']);

/** The canonical form of a path an object is created at: normalizeObjectPath, and not a reserved name. */
export function newObjectPath(raw: string, field = 'path'): string {
  const path = normalizeObjectPath(raw, field);
  const slash = path.lastIndexOf('/');
  if (slash > 0 && RESERVED_LAST_SEGMENTS.has(path.slice(slash + 1))) {
    throw new InvalidObjectPathError(field, `a path ending in "/view" or "/edit" is reserved for the document actions`);
  }
  return path;
}

/** A file name: one path segment under the same rules. */
export function normalizeFilename(raw: string, field = 'filename'): string {
  const value = raw.normalize('NFC');
  refuseUnsafeCharacters(value, field);
  if (value.includes('/')) throw new InvalidObjectPathError(field, 'a file name cannot contain "/"');
  if (value.trim() === '') throw new InvalidObjectPathError(field, 'the file name is empty');
  if (value === '..' || value === '.') throw new InvalidObjectPathError(field, '"." and ".." are not file names');
  if (value.length > MAX_FILENAME_LENGTH)
    throw new InvalidObjectPathError(field, `the file name is longer than ${MAX_FILENAME_LENGTH} characters`);
  return value;
}

/** The last segment of a normalised path: a raw upload's file name (DECISIONS). */
export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
