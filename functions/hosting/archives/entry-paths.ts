// The path rule of archive entries: an entry may only name a file inside the build (relative, no
// `..`, no drive letters or backslashes, no control characters). Store keys are built from the
// checked segments (shared/hosting/build-keys.ts), never from the raw name.
import { ValidationError } from '#shared/errors.ts';
import { encodeSegment, hasControlCharacter } from '#shared/hosting/build-keys.ts';

const MAX_PATH_LENGTH = 1024;
const MAX_DEPTH = 32;
/** Encoded segments stay within the 255 bytes a file name may have on common filesystems. */
const MAX_ENCODED_SEGMENT = 255;

export function refusedArchive(message: string): ValidationError {
  return ValidationError.forFields({ file: [message] }, message);
}

/**
 * The entry's path inside the build, as segments (`assets/app.js` → ['assets', 'app.js']), or
 * undefined for a directory entry. Throws a 400 naming the entry when the name could escape.
 */
export function buildPathOf(rawName: string): string[] | undefined {
  const shown = JSON.stringify(rawName.slice(0, 200));
  if (rawName.length === 0) throw refusedArchive('The archive has an entry without a name.');
  if (rawName.length > MAX_PATH_LENGTH) throw refusedArchive(`The entry ${shown} has a path longer than ${MAX_PATH_LENGTH} characters.`);
  if (hasControlCharacter(rawName)) throw refusedArchive(`The entry ${shown} has control characters in its name.`);
  if (rawName.includes('\\')) throw refusedArchive(`The entry ${shown} uses backslashes; archive paths use "/".`);
  if (rawName.startsWith('/') || /^[A-Za-z]:/.test(rawName)) throw refusedArchive(`The entry ${shown} has an absolute path.`);
  const segments = rawName.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw refusedArchive(`The entry ${shown} leads outside the build ("..").`);
  if (segments.length > MAX_DEPTH) throw refusedArchive(`The entry ${shown} is nested deeper than ${MAX_DEPTH} folders.`);
  if (rawName.endsWith('/')) return undefined;
  if (segments.length === 0) throw refusedArchive(`The entry ${shown} names no file.`);
  for (const segment of segments) {
    if (encodeSegment(segment).length > MAX_ENCODED_SEGMENT) throw refusedArchive(`The entry ${shown} has a name part that is too long.`);
  }
  return segments;
}
