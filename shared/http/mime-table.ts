// The MIME answers Tessera asks for (the type a file name suggests, the charset it is served with,
// the extensions of a type) from a compact table of what mime-types derives from mime-db: the
// extensions of each type, grouped by top-level type, the type chosen for an extension that several
// types list, and the charsets. mime-db itself is some 150 KB of JSON, most of it types no file name
// maps to and fields no lookup reads; the table is some 28 KB. The dev server builds it from
// mime-types on first use; a Lambda bundle carries it built when the bundle is (infra/bundling.ts).
import path from 'node:path';

export interface MimeTable {
  /** The extensions of each type that has extensions, space-separated: `{ image: { jpeg: 'jpeg jpg jpe' } }`. */
  extensions: Record<string, Record<string, string>>;
  /** For each extension that several types list, the type mime-types answers for it. */
  contested: Record<string, string>;
  /** The charset of each type that has one (text types, JSON, JavaScript and a few more). */
  charsets: Record<string, string>;
}

/** What of mime-types the table is built from: its maps and its charset rule. */
export interface MimeTypesLibrary {
  extensions: Record<string, string[]>;
  types: Record<string, string>;
  charset(type: string): string | false;
}

/** The table as maps, which no key such as `__proto__` or `constructor` can reach past. */
export interface MimeLookups {
  typeOfExtension: ReadonlyMap<string, string>;
  extensionsOfType: ReadonlyMap<string, readonly string[]>;
  charsetOfType: ReadonlyMap<string, string>;
}

function splitType(type: string): [top: string, sub: string] {
  const slash = type.indexOf('/');
  return [type.slice(0, slash), type.slice(slash + 1)];
}

export function mimeTableOf(library: MimeTypesLibrary): MimeTable {
  const grouped = new Map<string, Array<[string, string]>>();
  const listings = new Map<string, number>();
  const charsets: Array<[string, string]> = [];
  for (const [type, extensions] of Object.entries(library.extensions)) {
    const [top, sub] = splitType(type);
    if (!grouped.has(top)) grouped.set(top, []);
    grouped.get(top)!.push([sub, extensions.join(' ')]);
    for (const extension of extensions) listings.set(extension, (listings.get(extension) ?? 0) + 1);
    const charset = library.charset(type);
    if (charset !== false) charsets.push([type, charset]);
  }
  // Every contested extension is named, so the answer does not hang on the order types are read in.
  const contested = [...listings].filter(([, count]) => count > 1).map(([extension]) => [extension, library.types[extension]!]);
  return {
    extensions: Object.fromEntries([...grouped].map(([top, subs]) => [top, Object.fromEntries(subs)])),
    contested: Object.fromEntries(contested),
    charsets: Object.fromEntries(charsets),
  };
}

export function mimeLookupsOf(table: MimeTable): MimeLookups {
  const typeOfExtension = new Map<string, string>();
  const extensionsOfType = new Map<string, readonly string[]>();
  for (const [top, subs] of Object.entries(table.extensions)) {
    for (const [sub, list] of Object.entries(subs)) {
      const type = `${top}/${sub}`;
      const extensions = list.split(' ');
      extensionsOfType.set(type, extensions);
      for (const extension of extensions) {
        typeOfExtension.set(extension, Object.hasOwn(table.contested, extension) ? table.contested[extension]! : type);
      }
    }
  }
  return { typeOfExtension, extensionsOfType, charsetOfType: new Map(Object.entries(table.charsets)) };
}

/** The type a file name or path suggests by its extension, as mime-types' `lookup`. */
export function typeOfFileName(lookups: MimeLookups, name: string): string | undefined {
  // `x.` first, as mime-types does, so a bare extension (`json`) or a dot file (`.json`) counts.
  const extension = path.extname(`x.${name}`).toLowerCase().slice(1);
  return extension === '' ? undefined : lookups.typeOfExtension.get(extension);
}

/** The Content-Type a file of this name is served with, as mime-types' `contentType` (`text/html; charset=utf-8`). */
export function contentTypeOfFileName(lookups: MimeLookups, name: string): string | undefined {
  const type = typeOfFileName(lookups, name);
  if (type === undefined) return undefined;
  const charset = lookups.charsetOfType.get(type);
  return charset === undefined ? type : `${type}; charset=${charset.toLowerCase()}`;
}
