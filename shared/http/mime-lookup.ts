// MIME types by file name and file extensions by MIME type, from a compact table of what
// mime-types derives from mime-db (./mime-table.ts). Loaded on the first lookup, so a cold start of
// the storage or hosting group that serves no upload does not pay for it: a Lambda bundle reads the
// table it was built with (./bundled-mime-table.ts), the dev server and tests build it from mime-types.
import { lazyImport } from '#shared/lazy-import.ts';
import { contentTypeOfFileName, mimeLookupsOf, mimeTableOf, typeOfFileName } from './mime-table.ts';

const loadLookups = lazyImport(async () =>
  mimeLookupsOf(
    process.env.TESSERA_BUNDLE_MIME_TABLE === undefined
      ? mimeTableOf((await import('mime-types')).default)
      : (await import('./bundled-mime-table.ts')).bundledMimeTable(),
  ),
);

/** The type a file name or path suggests by its extension; undefined when none does. */
export async function mimeTypeOfPath(filePath: string): Promise<string | undefined> {
  return typeOfFileName(await loadLookups(), filePath);
}

/** The Content-Type a file of this name is served with, charset added for text (`text/html; charset=utf-8`). */
export async function contentTypeOfName(name: string): Promise<string | undefined> {
  return contentTypeOfFileName(await loadLookups(), name);
}

/** The extensions files of this type use (`image/jpeg` → jpeg, jpg, jpe); empty when unknown. */
export async function extensionsOfMimeType(type: string): Promise<readonly string[]> {
  return (await loadLookups()).extensionsOfType.get(type) ?? [];
}
