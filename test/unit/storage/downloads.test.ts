import { describe, expect, it } from 'vitest';
import { matchesEntityTag, parseRange } from '#functions/storage/objects/downloads.ts';
import { contentDisposition } from '#shared/http/content-disposition.ts';
import { headerMetadata } from '#functions/storage/objects/upload-service.ts';

describe('Range headers', () => {
  it('reads first-last, open and suffix ranges against the size', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'range', range: { start: 0, end: 9 } });
    expect(parseRange('bytes=90-', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-500', 100)).toEqual({ kind: 'range', range: { start: 0, end: 99 } });
    expect(parseRange('bytes=50-500', 100)).toEqual({ kind: 'range', range: { start: 50, end: 99 } });
    expect(parseRange(' Bytes = 1 - 2 ', 100)).toEqual({ kind: 'range', range: { start: 1, end: 2 } });
  });

  it('is unsatisfiable when the range starts past the end or asks for no suffix', () => {
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=100-200', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores a missing, malformed, reversed or multiple range', () => {
    for (const header of [undefined, 'bytes=', 'bytes=-', 'items=0-1', 'bytes=5-1', 'bytes=0-1,3-4', 'bytes=a-b']) {
      expect(parseRange(header, 100)).toEqual({ kind: 'whole' });
    }
  });
});

describe('entity tags', () => {
  it('matches the same tag, weak or strong, in a list, and *', () => {
    expect(matchesEntityTag('"abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('W/"abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('"x", "abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('*', '"abc"')).toBe(true);
    expect(matchesEntityTag('"abcd"', '"abc"')).toBe(false);
    expect(matchesEntityTag(undefined, '"abc"')).toBe(false);
  });
});

describe('Content-Disposition', () => {
  it('gives an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('attachment', 'naïve "x".txt')).toBe(
      `attachment; filename="na_ve _x_.txt"; filename*=UTF-8''na%C3%AFve%20%22x%22.txt`,
    );
    expect(contentDisposition('inline', "it's (1).png")).toBe(`inline; filename="it's (1).png"; filename*=UTF-8''it%27s%20%281%29.png`);
  });
});

describe('metadata headers', () => {
  it('turns X-Metadata-* and X-Store-Meta-* into lowercase hyphenated keys, X-Metadata winning', () => {
    expect(
      headerMetadata({
        'x-metadata-author_name': 'Ann',
        'x-store-meta-author-name': 'Bob',
        'x-store-meta-lang': 'en',
        'x-metadata-': 'nameless',
        'content-type': 'text/plain',
      }),
    ).toEqual({ 'author-name': 'Ann', lang: 'en' });
  });
});
