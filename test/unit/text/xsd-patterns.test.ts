// Table Schema patterns in XML Schema's dialect on the linear-time engine: what the dialect reads
// and how (against the XSD rules and, where the dialects agree, against JavaScript's RegExp), what it
// refuses and why, and the hostile patterns that grow large once translated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileUserPattern,
  MAX_TRANSLATED_CATEGORIES,
  MAX_TRANSLATED_LENGTH,
  UserPatternError,
  userPatternProblem,
} from '#shared/text/user-patterns.ts';

const xsd = { match: 'whole', dialect: 'xsd' } as const;
const matches = (pattern: string, value: string) => compileUserPattern(pattern, xsd).test(value);
const problem = (pattern: string) => userPatternProblem(pattern, xsd);

/** A code point sample: every ASCII one, then a stride through the rest of Unicode. */
const SAMPLE = [...Array.from({ length: 0x80 }, (_, cp) => cp), ...Array.from({ length: 0x10ff80 / 61 }, (_, i) => 0x80 + i * 61)].filter(
  (cp) => cp < 0xd800 || cp > 0xdfff,
);

describe('XML Schema patterns', () => {
  it.each([
    // Implicit anchoring: the whole value must match.
    ['[A-Z]{2}-\\d+', 'AB-12', true],
    ['[A-Z]{2}-\\d+', 'xAB-12', false],
    ['[A-Z]{2}-\\d+', 'AB-12x', false],
    // The empty pattern matches the empty value only.
    ['', '', true],
    ['', 'a', false],
    ['a|', '', true],
    ['()', '', true],
    // Character-class subtraction, nested, negated.
    ['[a-z-[aeiou]]+', 'rhythm', true],
    ['[a-z-[aeiou]]+', 'rhyme', false],
    ['[a-z-[b-y-[c]]]', 'c', true],
    ['[a-z-[b-y-[c]]]', 'd', false],
    ['[^a-z-[aeiou]]', 'B', true],
    ['[^a-z-[aeiou]]', 'a', false],
    ['[\\p{L}-[\\p{Lu}]]+', 'ωmega', true],
    ['[\\p{L}-[\\p{Lu}]]+', 'Ωmega', false],
    ['[\\w-[\\d]]', 'x', true],
    ['[\\w-[\\d]]', '5', false],
    // Name characters (XML 1.0 fifth edition).
    ['\\i\\c*', 'xs:element-1.a', true],
    ['\\i\\c*', '1x', false],
    ['\\I', '1', true],
    ['\\C', ':', false],
    // Blocks, including the XSD 1.0 names Unicode has since changed, and categories.
    ['\\p{IsBasicLatin}+', 'plain', true],
    ['\\p{IsBasicLatin}+', 'café', false],
    ['\\P{IsBasicLatin}', 'é', true],
    ['\\p{IsGreek}+', 'Ωμέγα', true],
    ['\\p{IsLatin-1Supplement}', 'é', true],
    ['\\p{L}+', 'Ωmega', true],
    ['\\p{Lu}\\p{Ll}+', 'Word', true],
    ['\\p{Nd}+', '٣٤', true],
    ['\\p{Cn}', '\u0378', true],
    // \d and \w per XSD: every decimal digit; everything but punctuation, separators and others.
    ['\\d+', '١٢٣', true],
    ['\\w+', 'a€b', true],
    ['\\w+', 'a-b', false],
    ['\\W', ' ', true],
    // \s is XSD's four characters; . is anything but \n and \r.
    ['\\s', '\u00a0', false],
    ['\\s+', ' \t\n\r', true],
    ['.', '\u2028', true],
    ['.', '\n', false],
    // Single-character escapes, and characters that are metacharacters elsewhere.
    ['\\.\\?\\*\\+\\(\\)\\{\\}\\|\\[\\]\\^\\-\\\\', '.?*+(){}|[]^-\\', true],
    ['[$]\\d+', '$12', true],
    ['[-a]', '-', true],
    ['[a-]', '-', true],
    ['[.]', '.', true],
    ['[.]', 'x', false],
    ['😀{2}', '😀😀', true],
    // A leading ^ and trailing $ (of the pattern or a top-level alternative) are the redundant anchors their writers meant.
    ['^[a-z]+$', 'abc', true],
    ['^[a-z]+$', '^abc$', false],
    ['^a$|^b$', 'b', true],
    ['^', '', true],
  ])('%s on %j is %s', (pattern, value, expected) => {
    expect(matches(pattern, value)).toBe(expected);
  });

  it.each([
    ['(a)\\1', /backreferences/],
    ['(?<n>a)\\k<n>', /named groups/],
    ['a\\k<n>', /named backreferences/],
    ['(?=a)a', /lookahead/],
    ['(?!a)b', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(?:ab)+', /non-capturing groups/],
    ['(?i)abc', /inline flags/],
    ['(?>a)', /atomic groups/],
    ['a+?', /lazy quantifiers/],
    ['a{1,2}?', /lazy quantifiers/],
    ['a*+', /possessive/],
    ['a**', /cannot follow the quantifier/],
    ['\\bword\\b', /word boundaries/],
    ['\\Aabc', /anchor \\A/],
    ['\\x41', /not XML Schema syntax/],
    ['\\u0041', /not XML Schema syntax/],
    ['\\$', /write \[\$\]/],
    ['\\pL', /needs a name in braces/],
    ['\\p{Latin}', /names no Unicode general category/],
    ['\\p{IsKlingon}', /names no Unicode block/],
    ['\\p{Cs}', /names no Unicode general category/],
    ['a^b', /ambiguous/],
    ['(^a)', /ambiguous/],
    ['a$b', /ambiguous/],
    ['^*', /nothing to repeat/],
    ['*a', /nothing to repeat/],
    ['a{,3}', /not a quantifier/],
    ['a{2,1}', /minimum above its maximum/],
    ['a{1001}', /above 1000/],
    ['a{99999999999999999999}', /above 1000/],
    ['a{1,99999999999999999999}', /above 1000/],
    ['{', /must be escaped/],
    ['a}', /must be escaped/],
    [']', /must be escaped/],
    ['[', /never closed/],
    ['[a', /never closed/],
    ['[]', /cannot be empty/],
    ['[^]', /cannot be empty/],
    ['[a-c-e]', /"-" inside a character class/],
    ['[a[b]]', /"\[" inside a character class/],
    ['[z-a]', /out of order/],
    ['[a-\\d]', /cannot end with a class escape/],
    ['[-[a]]', /needs something to subtract from/],
    ['[a-z-[aeiou]x]', /must end its character class/],
    ['(', /never closed/],
    ['a)', /closes no group/],
    ['\\', /lone "\\"/],
    ['a\u0000b', /U\+0000/],
    ['\\0', /\\0/],
  ])('refuses %j (%s)', (pattern, reason) => {
    let caught: unknown;
    try {
      compileUserPattern(pattern, xsd);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UserPatternError);
    expect((caught as UserPatternError).reason).toMatch(reason);
  });

  it('reads \\d, \\w, \\p{L} and their complements as the Unicode categories say, over all of Unicode', () => {
    const is = (regexp: RegExp) => (ch: string) => regexp.test(ch);
    const classes: [string, (ch: string) => boolean][] = [
      ['\\d', is(/^\p{Nd}$/u)],
      ['\\D', is(/^\P{Nd}$/u)],
      ['\\w', is(/^[^\p{P}\p{Z}\p{C}]$/u)],
      ['\\W', is(/^[\p{P}\p{Z}\p{C}]$/u)],
      ['\\p{L}', is(/^\p{L}$/u)],
      ['[\\p{L}-[\\p{Lu}]]', (ch) => /^\p{L}$/u.test(ch) && !/^\p{Lu}$/u.test(ch)],
      ['[\\w-[\\p{Ll}\\d]]', (ch) => /^[^\p{P}\p{Z}\p{C}]$/u.test(ch) && !/^[\p{Ll}\p{Nd}]$/u.test(ch)],
      ['[^\\p{N}-[\\p{IsBasicLatin}]]', (ch) => !/^\p{N}$/u.test(ch) && ch.codePointAt(0)! > 0x7f],
    ];
    for (const [pattern, reference] of classes) {
      const compiled = compileUserPattern(pattern, xsd);
      const wrong = SAMPLE.filter((cp) => compiled.test(String.fromCodePoint(cp)) !== reference(String.fromCodePoint(cp)));
      expect(
        wrong.map((cp) => cp.toString(16)),
        pattern,
      ).toEqual([]);
    }
  });

  it('subtracts classes as sets (property test over small ASCII classes)', () => {
    const member = fc.constantFrom('a', 'b', 'c', 'x', 'y', 'a-c', 'b-y', 'm-z', '0-9', '\\-');
    const body = fc.array(member, { minLength: 1, maxLength: 4 }).map((items) => items.join(''));
    fc.assert(
      fc.property(fc.boolean(), body, body, fc.option(body), fc.constantFrom(...'abcmxyz09-'.split('')), (negated, a, b, c, ch) => {
        const inner = c === null ? `[${b}]` : `[${b}-[${c}]]`;
        const pattern = `[${negated ? '^' : ''}${a}-${inner}]`;
        const inA = new RegExp(`^[${a}]$`).test(ch) !== negated;
        const inB = new RegExp(`^[${b}]$`).test(ch) && !(c !== null && new RegExp(`^[${c}]$`).test(ch));
        expect(matches(pattern, ch), `${pattern} on ${ch}`).toBe(inA && !inB);
      }),
      { numRuns: 1500 },
    );
  });

  it("agrees with JavaScript's RegExp where the dialects read the same (property test)", () => {
    const token = fc.constantFrom('a', 'b', '[ab]', '[^a]', '[a-c]', '(', ')', '|', '*', '+', '?', '{1,2}', '{2}', '\\.', '\\-', 'é');
    const char = fc.constantFrom('a', 'b', 'c', '.', '-', 'é', ' ');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), fc.array(char, { maxLength: 5 }), (tokens, chars) => {
        const source = tokens.join('');
        let reference: RegExp;
        try {
          reference = new RegExp(`^(?:${source})$`, 'u');
        } catch {
          return;
        }
        if (problem(source) !== undefined) return;
        const value = chars.join('');
        expect(matches(source, value), `${source} on ${JSON.stringify(value)}`).toBe(reference.test(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses hostile patterns that grow past the limits once translated, and keeps large legitimate ones', () => {
    // \i is 16 ranges: 500 of them go past the translated-size limit.
    expect(problem('\\i'.repeat(500))).toMatch(
      new RegExp(`too large once its classes are expanded \\(\\d+ characters, at most ${MAX_TRANSLATED_LENGTH}\\)`),
    );
    // Categories stay RE2 names, so repeating them costs program size, not text; RE2 builds each one
    // when it compiles, so their number is bounded too.
    expect(problem('\\p{L}'.repeat(200))).toBeUndefined();
    expect(problem('\\w'.repeat(64))).toBeUndefined();
    // \w stands for four categories: 64 of them are the most a pattern may hold.
    expect(problem('\\w'.repeat(MAX_TRANSLATED_CATEGORIES / 4 + 1))).toMatch(
      new RegExp(`too many Unicode categories once translated \\(${MAX_TRANSLATED_CATEGORIES + 4}, at most ${MAX_TRANSLATED_CATEGORIES}`),
    );
    expect(problem(`[${'a-z'.repeat(10)}${'\\p{L}'.repeat(10)}-[${'\\p{N}'.repeat(6)}]]`.repeat(7))).toMatch(/too many Unicode categories/);
    expect(problem('\\p{L}{1000}')).toBeUndefined();
    expect(problem('(\\p{L}{1000}){2}')).toMatch(/repeat count|too complex/);
    expect(problem('((a{100}){100}){100}')).toMatch(/repeat count|too complex/);
    expect(problem('\\w{900}\\d{900}\\s{900}')).toMatch(/too complex \(program size/);
    // Subtractions of categories expand into alternatives; nesting them deeply is refused.
    const nested = (depth: number) => `${'[\\p{L}\\p{N}\\p{S}-'.repeat(depth)}[\\p{Lu}]${']'.repeat(depth)}`;
    expect(problem(nested(2))).toBeUndefined();
    expect(problem(nested(12))).toMatch(/subtraction is too complex/);
    // Explicit sets subtract exactly, however deep.
    expect(problem(`${'[a-z-'.repeat(40)}[q]${']'.repeat(40)}`)).toBeUndefined();
    expect(problem('('.repeat(400) + ')'.repeat(400))).toBeUndefined();
    expect(problem('[')).toMatch(/never closed/);
    expect(problem('\u0000')).toMatch(/U\+0000/);
    expect(problem('')).toBeUndefined();
  });

  it('judges a 100,000-character near miss of (a+)+ on the linear-time engine', () => {
    const pattern = compileUserPattern('(a+)+', xsd);
    expect(pattern.test(`${'a'.repeat(99_999)}!`)).toBe(false);
    expect(pattern.test('a'.repeat(100_000))).toBe(true);
  });
});
