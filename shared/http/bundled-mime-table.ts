// The MIME table a Lambda bundle carries: `buildLambdaBundle` writes it in for
// TESSERA_BUNDLE_MIME_TABLE when it bundles, compressed, from the mime-types installed then
// (./mime-table.ts). Only ./mime-lookup.ts imports this, lazily and only in a bundle, so the text
// is a chunk read on the first lookup.
import { parseCompressedJson } from '#shared/json/compressed-json.ts';
import type { MimeTable } from './mime-table.ts';

export function bundledMimeTable(): MimeTable {
  return parseCompressedJson(process.env.TESSERA_BUNDLE_MIME_TABLE!) as MimeTable;
}
