import { describe, expect, it } from 'vitest';
import { InvalidObjectPathError, lastSegment, normalizeFilename, normalizeObjectPath } from '#functions/storage/objects/object-keys.ts';

describe('object path normalisation', () => {
  it('collapses duplicate slashes and drops a trailing slash', () => {
    expect(normalizeObjectPath('a//b///c.txt/')).toBe('a/b/c.txt');
    expect(normalizeObjectPath('file.txt')).toBe('file.txt');
  });

  it('composes Unicode to NFC so one name has one form', () => {
    expect(normalizeObjectPath('cafe\u0301.txt')).toBe('caf\u00e9.txt');
  });

  it('keeps names that merely contain dots or percent signs', () => {
    expect(normalizeObjectPath('..hidden/a..b/...')).toBe('..hidden/a..b/...');
    expect(normalizeObjectPath('%2e%2e/x')).toBe('%2e%2e/x');
  });

  it.each([
    ['..', /"\." and "\.\." segments/],
    ['../x', /"\." and "\.\." segments/],
    ['a/../b', /"\." and "\.\." segments/],
    ['a/..', /"\." and "\.\." segments/],
    ['./a', /"\." and "\.\." segments/],
    ['/abs', /absolute/],
    ['//abs', /absolute/],
    ['a\\b', /backslashes/],
    ['a\u0000b', /control characters/],
    ['a\nb', /control characters/],
    ['a\u007fb', /control characters/],
    ['', /empty/],
    ['/', /absolute/],
    [`${'a'.repeat(256)}/b`, /segment is longer/],
    [Array.from({ length: 300 }, () => 'abcd').join('/'), /longer than 1024/],
  ])('refuses %j', (raw, reason) => {
    expect(() => normalizeObjectPath(raw)).toThrow(InvalidObjectPathError);
    expect(() => normalizeObjectPath(raw)).toThrow(reason);
  });

  it('names the field in the 400', () => {
    try {
      normalizeObjectPath('../x', 'destination_path');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect((error as InvalidObjectPathError).fieldErrors).toHaveProperty('destination_path');
    }
  });
});

describe('file names', () => {
  it('accepts one segment and refuses slashes, dot names, backslashes, controls and blanks', () => {
    expect(normalizeFilename('report final.pdf')).toBe('report final.pdf');
    for (const bad of ['a/b', '..', '.', 'a\\b', 'a\u0000', '  ', 'x'.repeat(256)]) {
      expect(() => normalizeFilename(bad)).toThrow(InvalidObjectPathError);
    }
  });

  it('takes the last segment of a path as the name of a raw upload', () => {
    expect(lastSegment('a/b/c.txt')).toBe('c.txt');
    expect(lastSegment('c.txt')).toBe('c.txt');
  });
});
