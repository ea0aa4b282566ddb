// The compact MIME table answers exactly as mime-types (which reads the whole of mime-db) does, for
// every extension and type it knows, whether built in the process or carried compressed in a bundle.
import mimeTypes from 'mime-types';
import { describe, expect, it } from 'vitest';
import {
  contentTypeOfFileName as contentType,
  mimeLookupsOf,
  mimeTableOf,
  typeOfFileName,
  type MimeLookups,
  type MimeTable,
} from '#shared/http/mime-table.ts';
import { compressedJson, parseCompressedJson } from '#shared/json/compressed-json.ts';

const built = mimeTableOf(mimeTypes);
const variants: Array<[string, MimeLookups]> = [
  ['built in the process', mimeLookupsOf(built)],
  ['carried compressed, as a bundle does', mimeLookupsOf(parseCompressedJson(compressedJson(built)) as MimeTable)],
];
const extensions = Object.keys(mimeTypes.types);
const types = Object.keys(mimeTypes.extensions);

/** Names whose extension is odd, hostile or missing. */
const ODD_NAMES = [
  '__proto__',
  'x.__proto__',
  'constructor',
  'a.constructor',
  'file.toString',
  'file.hasOwnProperty',
  '',
  '.',
  'x.',
  'noextension',
  '.htaccess',
  '.json',
  'json',
  'ARCHIVE.TAR.GZ',
  'photo.JPG',
  'report.final.PDF',
  'weird name with spaces.Html',
  'café.txt',
  'x.ｊｐｇ',
];

describe.each(variants)('the MIME table %s', (_, lookups) => {
  it('gives every extension the type mime-types gives it, the contested ones included', () => {
    expect(extensions.length).toBeGreaterThan(1000);
    for (const extension of extensions) {
      expect(typeOfFileName(lookups, `file.${extension}`), extension).toBe(mimeTypes.lookup(`file.${extension}`));
      expect(typeOfFileName(lookups, extension), extension).toBe(mimeTypes.lookup(extension));
    }
    // Extensions several types list: the answer is mime-types' choice, not the first listing.
    expect(typeOfFileName(lookups, 'clip.mp4')).toBe('video/mp4');
    expect(typeOfFileName(lookups, 'page.xml')).toBe('application/xml');
    expect(typeOfFileName(lookups, 'font.woff')).toBe('font/woff');
  });

  it('serves every named file with the content type mime-types builds, charset included', () => {
    for (const extension of extensions) {
      const name = `file.${extension}`;
      expect(contentType(lookups, name), name).toBe(mimeTypes.contentType(name));
    }
    expect(contentType(lookups, 'index.html')).toBe('text/html; charset=utf-8');
    expect(contentType(lookups, 'data.json')).toBe('application/json; charset=utf-8');
    expect(contentType(lookups, 'logo.png')).toBe('image/png');
  });

  it('lists every type’s extensions as mime-types does, and none for a type it does not know', () => {
    for (const type of types) expect(lookups.extensionsOfType.get(type), type).toEqual(mimeTypes.extensions[type]);
    for (const type of ['IMAGE/JPEG', 'image/unknown', '__proto__', 'constructor', 'toString', '']) {
      expect(lookups.extensionsOfType.get(type), type).toBe(mimeTypes.extensions[type]);
    }
  });

  it('answers odd and hostile names as mime-types does, never with an inherited property', () => {
    for (const name of ODD_NAMES) {
      expect(typeOfFileName(lookups, name) ?? false, name).toBe(mimeTypes.lookup(name));
      expect(contentType(lookups, name) ?? false, name).toBe(mimeTypes.contentType(name));
    }
  });
});

describe('the table a bundle carries', () => {
  it('is a fraction of mime-db, compressed to a fraction of itself', () => {
    const json = JSON.stringify(built);
    expect(json.length).toBeLessThan(40_000);
    expect(compressedJson(built).length).toBeLessThan(json.length / 2);
  });
});
