// JSON carried as brotli-compressed base64 text: for tables a Lambda bundle holds as a string
// constant (infra/bundling.ts), which compress to a third of their size and more. Decompressing
// them takes well under a millisecond, once, on first use.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

export function compressedJson(value: unknown): string {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const quality = { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length };
  return brotliCompressSync(json, { params: quality }).toString('base64');
}

/** The value `compressedJson` was given. */
export function parseCompressedJson(text: string): unknown {
  return JSON.parse(brotliDecompressSync(Buffer.from(text, 'base64')).toString('utf8'));
}
