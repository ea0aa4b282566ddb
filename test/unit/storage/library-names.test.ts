import { describe, expect, it } from 'vitest';
import { drivePath, libraryFileName } from '#shared/storage/document-library/drive.ts';

describe('document-library names', () => {
  it('addresses a storage key by path, each segment percent-encoded', () => {
    expect(drivePath('site/bucket/3f2a/Offer 2026 (v2).docx')).toBe('/site/bucket/3f2a/Offer%202026%20(v2).docx');
  });

  it('refuses keys SharePoint cannot name', () => {
    for (const key of ['a//b', '../x', 'a/./b', 'a/b:c', 'a/ b', 'a/b.', 'a/what?.docx', '']) {
      expect(() => drivePath(key), key).toThrow();
    }
  });

  it('cleans a client file name into one SharePoint accepts, keeping its extension', () => {
    expect(libraryFileName('Q3: "final" <draft>?.docx')).toBe('Q3_ _final_ _draft__.docx');
    expect(libraryFileName('folder/inner\\name.xlsx')).toBe('folder_inner_name.xlsx');
    expect(libraryFileName('  .hidden.pptx. ')).toBe('hidden.pptx');
  });

  it('never answers an empty, dot or dot-dot name', () => {
    for (const name of ['', '..', '.', '   ', '...']) expect(libraryFileName(name)).toBe('document');
  });

  it('cuts a long name to 120 characters and keeps the extension', () => {
    const name = libraryFileName(`${'x'.repeat(300)}.docx`);

    expect(name).toHaveLength(120);
    expect(name.endsWith('.docx')).toBe(true);
    expect(() => drivePath(`a/${name}`)).not.toThrow();
  });
});
