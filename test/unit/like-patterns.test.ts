import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike, startsWithPattern } from '#shared/text/like-patterns.ts';

describe('LIKE patterns from user text', () => {
  it('escapes the LIKE wildcards and the escape character so they match themselves', () => {
    expect(escapeLike('50%_off\\now')).toBe('50\\%\\_off\\\\now');
  });

  it('adds the wildcards a contains or starts-with search needs', () => {
    expect(containsPattern('a_b')).toBe('%a\\_b%');
    expect(startsWithPattern('site%')).toBe('site\\%%');
  });
});
