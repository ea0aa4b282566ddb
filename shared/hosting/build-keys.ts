// Where a frontend build's files live in the builds store, shared by the hosting group (which
// writes them) and whoever serves them (the dev server locally). A key is the build's prefix
// (`<site uuid>/<build uuid>`) and the file's path segments in the store's safe alphabet: plain
// segments as they are, any other as `--` and its UTF-8 hex, so two paths never share a key.

/** A segment the stores take as it is (the filesystem store's safe-key alphabet). */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const ENCODED_MARK = '--';

export function encodeSegment(segment: string): string {
  if (PLAIN_SEGMENT.test(segment) && !segment.startsWith(ENCODED_MARK)) return segment;
  return `${ENCODED_MARK}${Buffer.from(segment, 'utf8').toString('hex')}`;
}

/** C0 control characters and DEL: never part of a path a build may hold. */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function buildPrefixOf(siteUuid: string, buildUuid: string): string {
  return `${siteUuid}/${buildUuid}`;
}

/** The store key of a build file. */
export function buildFileKey(buildPrefix: string, segments: readonly string[]): string {
  return `${buildPrefix}/${segments.map(encodeSegment).join('/')}`;
}

/**
 * The file a request path names inside a build (`/` and `/docs/` name their index.html), or
 * undefined when the path cannot name one (`..`, bad percent-encoding, control characters).
 */
export function requestedSegments(urlPath: string): string[] | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\\') || hasControlCharacter(decoded)) return undefined;
  const segments = decoded.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return undefined;
  if (decoded.endsWith('/') || segments.length === 0) segments.push('index.html');
  return segments;
}
