// The user-pattern engine's contract in JavaScript's dialect (secret-type schemas, and Table Schema
// patterns stored before XML Schema's; xsd-patterns.test.ts tests that one): whole-value and search
// matching, the typed error for patterns RE2 cannot run, the cache, and time per value that grows
// with the value, not with backtracking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileUserPattern, MAX_PATTERN_LENGTH, UserPatternError, userPatternProblem } from '#shared/text/user-patterns.ts';

describe('user patterns', () => {
  it('matches the whole value in whole mode and anywhere in search mode', () => {
    const whole = compileUserPattern('[A-Z]{3}-\\d+', { match: 'whole' });
    const search = compileUserPattern('[A-Z]{3}-\\d+', { match: 'search' });
    expect(whole.test('ABC-12')).toBe(true);
    expect(whole.test('xABC-12')).toBe(false);
    expect(whole.test('ABC-12x')).toBe(false);
    expect(search.test('xABC-12x')).toBe(true);
    expect(compileUserPattern('a|ab', { match: 'whole' }).test('ab')).toBe(true);
  });

  it('reads JavaScript syntax: escapes, classes, Unicode properties, named groups', () => {
    expect(compileUserPattern('\\u0041\\x42', { match: 'whole' }).test('AB')).toBe(true);
    expect(compileUserPattern('\\p{L}+', { match: 'whole' }).test('Ωmega')).toBe(true);
    expect(compileUserPattern('(?<year>\\d{4})-\\d{2}', { match: 'whole' }).test('2026-11')).toBe(true);
    expect(compileUserPattern('[\\]\\\\]+', { match: 'whole' }).test(']\\')).toBe(true);
    expect(compileUserPattern('', { match: 'whole' }).test('')).toBe(true);
  });

  it('throws UserPatternError for what needs backtracking or is not a pattern, with the reason', () => {
    const cases: [string, RegExp][] = [
      ['(a)\\1', /backreferences/],
      ['(?<n>a)\\k<n>', /named backreferences/],
      ['(?=a)a', /lookahead and lookbehind/],
      ['(?<!a)b', /lookahead and lookbehind/],
      ['(', /not a valid regular expression/],
      ['\\z', /not a valid regular expression/],
      ['a{1001}', /repeat count/],
      ['a'.repeat(MAX_PATTERN_LENGTH + 1), /longer than 1000/],
      ['(\\w{1,10}){100}', /too complex|repeat/],
    ];
    for (const [pattern, reason] of cases) {
      let caught: unknown;
      try {
        compileUserPattern(pattern, { match: 'whole' });
      } catch (error) {
        caught = error;
      }
      expect(caught, pattern).toBeInstanceOf(UserPatternError);
      expect((caught as UserPatternError).reason, pattern).toMatch(reason);
      expect((caught as UserPatternError).pattern).toBe(pattern);
      expect(userPatternProblem(pattern, { match: 'search' })).toMatch(reason);
    }
    expect(userPatternProblem('[a-z]+', { match: 'whole' })).toBeUndefined();
    // A backslash-digit inside a class is not a backreference.
    expect(userPatternProblem('[\\d1]+', { match: 'whole' })).toBeUndefined();
  });

  it("agrees with JavaScript's RegExp on every pattern both accept (property test over small patterns)", () => {
    const token = fc.constantFrom(
      'a',
      'b',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '[ab]',
      '[^a\\s]',
      '(',
      ')',
      '|',
      '*',
      '+',
      '?',
      '{1,2}',
      '^',
      '$',
      '(?:',
    );
    const char = fc.constantFrom('a', 'b', ' ', '\n', '\r', '1', '\u00a0', '\u2028', '😀', '_');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), fc.array(char, { maxLength: 6 }), (tokens, chars) => {
        const source = tokens.join('');
        const value = chars.join('');
        let expected: boolean;
        try {
          expected = new RegExp(`^(?:${source})$`, 'u').test(value);
        } catch {
          return;
        }
        if (userPatternProblem(source, { match: 'whole' }) !== undefined) return;
        expect(compileUserPattern(source, { match: 'whole' }).test(value), `${source} on ${JSON.stringify(value)}`).toBe(expected);
        expect(compileUserPattern(source, { match: 'search' }).test(value)).toBe(new RegExp(source, 'u').test(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('caches compiled patterns per match mode', () => {
    expect(compileUserPattern('x+', { match: 'whole' })).toBe(compileUserPattern('x+', { match: 'whole' }));
    expect(compileUserPattern('x+', { match: 'whole' })).not.toBe(compileUserPattern('x+', { match: 'search' }));
    expect(String(compileUserPattern('x+', { match: 'search' }))).toBe('x+');
  });

  it('judges a 100,000-character near miss of (a+)+$ in well under a second', () => {
    const pattern = compileUserPattern('(a+)+$', { match: 'whole' });
    const started = performance.now();
    expect(pattern.test(`${'a'.repeat(99_999)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
