// The Content-Type and Cache-Control of a build file, one rule for both places that serve builds:
// the dev server sends them with each answer (infra/local/hosted-builds.ts), and the hosting group
// stores them on each object it uploads to the builds bucket, which CloudFront passes on deployed.
// index.html is revalidated on every load (no-cache), so a new build shows at once; hashed assets
// never change under their name, so they are cached for good (immutable); anything else revalidates.
import mime from 'mime-types';

/** `app.3f9a1c2e.js`, `index-B4x_2aQ9.css`: a name part of 8+ characters with a digit, before the extension. */
const HASHED_NAME = /[.-](?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{8,}\.[A-Za-z0-9]+$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

export interface BuildFileHeaders {
  contentType: string;
  cacheControl: string;
}

/** Headers of the build file with this name (the last segment of its path). */
export function buildFileHeaders(name: string): BuildFileHeaders {
  return {
    contentType: mime.contentType(name) || 'application/octet-stream',
    cacheControl: name !== 'index.html' && HASHED_NAME.test(name) ? IMMUTABLE : REVALIDATE,
  };
}
