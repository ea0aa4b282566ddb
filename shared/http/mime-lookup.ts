// MIME types by file name and file extensions by MIME type, from mime-types (the mime-db table,
// some 150 KB of JSON turned into lookup maps when the module runs): loaded on the first lookup,
// so a cold start of the storage or hosting group that serves no upload does not pay for it.
import { lazyImport } from '#shared/lazy-import.ts';

const loadMimeTypes = lazyImport(async () => (await import('mime-types')).default);

/** The type a file name or path suggests by its extension; undefined when none does. */
export async function mimeTypeOfPath(filePath: string): Promise<string | undefined> {
  const found = (await loadMimeTypes()).lookup(filePath);
  return found === false ? undefined : found;
}

/** The Content-Type a file of this name is served with, charset added for text (`text/html; charset=utf-8`). */
export async function contentTypeOfName(name: string): Promise<string | undefined> {
  const found = (await loadMimeTypes()).contentType(name);
  return found === false ? undefined : found;
}

/** The extensions files of this type use (`image/jpeg` → jpeg, jpg, jpe); empty when unknown. */
export async function extensionsOfMimeType(type: string): Promise<readonly string[]> {
  return (await loadMimeTypes()).extensions[type] ?? [];
}
