// XML Schema regular expressions (XSD Part 2, appendix F: the dialect of Table Schema's `pattern`)
// translated into RE2 syntax for the linear-time engine. A hand-written parser rather than text
// substitution, because the dialects disagree on almost every metacharacter: XSD has character-class
// subtraction (`[a-z-[aeiou]]`), `\i \c` name classes, `\p{IsBlock}` block escapes, `\d` and `\w` over
// all of Unicode, and no anchors, flags, lookaround, backreferences, lazy quantifiers or `(?` groups.
// Whatever is outside the dialect is refused with the construct named, never read some other way.
//
// One deliberate extension, for patterns written in other dialects before this one was the rule: a
// `^` opening and a `$` closing the pattern (or one of its top-level alternatives) are read as the
// anchors their writers meant. Every pattern matches the whole value already, so they change nothing.
// A `^` or `$` anywhere else is refused: XSD would read it as the character, its writer probably not.
import { UNICODE_BLOCKS } from './unicode-blocks.ts';

/** Why an XSD pattern cannot be translated, in words for the client. */
export class XsdPatternError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'XsdPatternError';
  }
}

/** Alternatives one subtraction may expand to (see `intersect`), so no class grows without bound. */
const MAX_CLASS_TERMS = 64;
/** Largest repetition count, RE2's own limit, checked before its parser sees a huge number. */
const MAX_REPEAT = 1000;
const MAX_CODE_POINT = 0x10ffff;

type Range = readonly [number, number];

/**
 * A set of characters as RE2 class fragments (the text inside `[...]`): `frag` for the set and
 * `comp` for its complement, each a union that is '' when empty.
 */
interface Item {
  frag: string;
  comp: string;
  /** The code points, when the set is a list of ranges (not a Unicode category). */
  ranges?: readonly Range[];
}

/** `negated: false` is the union of its items, `negated: true` everything else. */
interface Term {
  negated: boolean;
  items: Item[];
}

/** A character class: the union of its terms (most classes are one term). */
type CharSet = Term[];

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;

function rangesText(ranges: readonly Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('');
}

/** Sorted, merged ranges. */
function normalized(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complementRanges(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalized(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function explicitItem(ranges: readonly Range[]): Item {
  const set = normalized(ranges);
  return { frag: rangesText(set), comp: rangesText(complementRanges(set)), ranges: set };
}

const complementItem = (item: Item): Item =>
  item.ranges === undefined ? { frag: item.comp, comp: item.frag } : explicitItem(complementRanges(item.ranges));

/** The code points of a term whose items are all ranges, else undefined. */
function termRanges(term: Term): Range[] | undefined {
  if (!term.items.every((item) => item.ranges !== undefined)) return undefined;
  const union = normalized(term.items.flatMap((item) => item.ranges!));
  return term.negated ? complementRanges(union) : union;
}

/** XML 1.0 (fifth edition) NameStartChar: what `\i` matches. */
const NAME_START: Range[] = [
  [0x3a, 0x3a],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x2ff],
  [0x370, 0x37d],
  [0x37f, 0x1fff],
  [0x200c, 0x200d],
  [0x2070, 0x218f],
  [0x2c00, 0x2fef],
  [0x3001, 0xd7ff],
  [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd],
  [0x10000, 0xeffff],
];
/** XML 1.0 (fifth edition) NameChar: what `\c` matches. */
const NAME_CHAR: Range[] = [...NAME_START, [0x2d, 0x2e], [0x30, 0x39], [0xb7, 0xb7], [0x300, 0x36f], [0x203f, 0x2040]];

/**
 * The multi-character escapes. `\w` is XSD's "all characters but punctuation, separators and others"
 * (P, Z, C): as every code point is in exactly one general category, that is L, M, N and S.
 */
const MULTI_CHAR_ESCAPES: Record<string, Item> = {
  s: explicitItem([
    [0x20, 0x20],
    [0x09, 0x0a],
    [0x0d, 0x0d],
  ]),
  i: explicitItem(NAME_START),
  c: explicitItem(NAME_CHAR),
  d: { frag: '\\p{Nd}', comp: '\\P{Nd}' },
  w: { frag: '\\p{L}\\p{M}\\p{N}\\p{S}', comp: '\\p{P}\\p{Z}\\p{C}' },
};
/** `.`: anything but a line feed or carriage return. */
const WILDCARD = complementItem(
  explicitItem([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
  ]),
);

/** XSD's general categories (`\p{Lu}`); RE2 knows each by the same name. */
const CATEGORIES = new Set(
  'L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po Z Zs Zl Zp S Sm Sc Sk So C Cc Cf Co Cn'.split(' '),
);

/** Block names: Blocks.txt names without spaces, plus the XSD 1.0 names Unicode has since changed. */
let blocks: Map<string, Range[]> | undefined;
function blockRanges(name: string): Range[] | undefined {
  if (blocks === undefined) {
    blocks = new Map(UNICODE_BLOCKS.map(([block, lo, hi]) => [block, [[lo, hi]]]));
    blocks.set('Greek', [[0x370, 0x3ff]]);
    blocks.set('CombiningMarksforSymbols', [[0x20d0, 0x20ff]]);
    blocks.set('PrivateUse', [
      [0xe000, 0xf8ff],
      [0xf0000, 0xffffd],
      [0x100000, 0x10fffd],
    ]);
  }
  return blocks.get(name);
}

/** One `\p{...}` property: a general category or `Is` and a block name. */
function propertyItem(name: string): Item {
  if (CATEGORIES.has(name)) return { frag: `\\p{${name}}`, comp: `\\P{${name}}` };
  const ranges = name.startsWith('Is') ? blockRanges(name.slice(2)) : undefined;
  if (ranges !== undefined) return explicitItem(ranges);
  throw new XsdPatternError(
    name.startsWith('Is')
      ? `\\p{${name}} names no Unicode block (block names are those of Unicode 14 without spaces, such as IsBasicLatin)`
      : `\\p{${name}} names no Unicode general category (L, Lu, Nd, P, ...) or block (IsBasicLatin, ...)`,
  );
}

/** `a ∩ b` of two terms, as a union of negated terms: `[P] ∩ [^Q]` is the union over p of `[^ ¬p Q]`. */
function intersectTerms(a: Term, b: Term): Term[] {
  const [aRanges, bRanges] = [termRanges(a), termRanges(b)];
  if (aRanges !== undefined && bRanges !== undefined) {
    // Explicit sets intersect exactly: A ∩ B is the complement of ¬A ∪ ¬B.
    return [{ negated: false, items: [explicitItem(complementRanges([...complementRanges(aRanges), ...complementRanges(bRanges)]))] }];
  }
  if (a.negated && b.negated) return [{ negated: true, items: [...a.items, ...b.items] }];
  if (!a.negated && b.negated) return a.items.map((p) => ({ negated: true, items: [complementItem(p), ...b.items] }));
  if (a.negated && !b.negated) return intersectTerms(b, a);
  return a.items.flatMap((p) => b.items.map((q) => ({ negated: true, items: [complementItem(p), complementItem(q)] })));
}

function intersect(a: CharSet, b: CharSet): CharSet {
  const terms = a.flatMap((x) => b.flatMap((y) => intersectTerms(x, y)));
  if (terms.length > MAX_CLASS_TERMS) throw new XsdPatternError('a character class subtraction is too complex');
  return terms;
}

/** Everything but the set: the intersection of its terms' complements. */
function complement(set: CharSet): CharSet {
  return set.reduce<CharSet>(
    (acc, term) => intersect(acc, [{ negated: !term.negated, items: term.items }]),
    [{ negated: true, items: [] }],
  );
}

function emitTerm(term: Term): string {
  const frags = term.items.map((item) => item.frag).join('');
  if (frags === '') return term.negated ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
  return term.negated ? `[^${frags}]` : `[${frags}]`;
}

function emitSet(set: CharSet): string {
  return set.length === 1 ? emitTerm(set[0]!) : `(?:${set.map(emitTerm).join('|')})`;
}

const single = (item: Item): CharSet => [{ negated: false, items: [item] }];

/** A group's items with every list of ranges merged into one item: fewer terms when it is intersected. */
function compacted(items: readonly Item[]): Item[] {
  const explicit = items.filter((item) => item.ranges !== undefined);
  if (explicit.length < 2) return [...items];
  return [explicitItem(explicit.flatMap((item) => item.ranges!)), ...items.filter((item) => item.ranges === undefined)];
}

/** A literal character in RE2 syntax: letters and digits as they are, anything else escaped. */
function literal(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? String.fromCodePoint(cp) : hex(cp);
}

/** Characters `\` may escape to stand for themselves (SingleCharEsc), with n, r and t. */
const SINGLE_CHAR_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09 };
for (const ch of '\\|.?*+(){}-[]^') SINGLE_CHAR_ESCAPES[ch] = ch.codePointAt(0)!;

/** What a backslash sequence outside the dialect is, for the refusal. */
function unsupportedEscape(ch: string): string {
  if (/[1-9]/.test(ch)) return `backreferences (\\${ch}) are not supported`;
  if (ch === 'k') return 'named backreferences (\\k<name>) are not supported';
  if (ch === 'b' || ch === 'B') return `word boundaries (\\${ch}) are not supported`;
  if ('AzZG'.includes(ch)) return `the anchor \\${ch} is not supported: a pattern always matches the whole value`;
  if (ch === 'x' || ch === 'u')
    return `the escape \\${ch} is not XML Schema syntax: write the character itself (in JSON, "\\\\u0041" is written "\\u0041" or "A")`;
  if (ch === '$') return 'the escape \\$ is not XML Schema syntax: write [$] for the character';
  if (ch === 'Q' || ch === 'E') return 'quoting with \\Q...\\E is not supported';
  if (ch === '0') return 'the escape \\0 is not supported';
  return `the escape \\${ch} is not XML Schema syntax`;
}

class Translator {
  private readonly chars: string[];
  private at = 0;
  private depth = 0;

  constructor(source: string) {
    this.chars = Array.from(source);
  }

  translate(): string {
    const out = this.regExp();
    if (this.at < this.chars.length) throw new XsdPatternError(`the ")" at character ${this.at + 1} closes no group`);
    return out;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  private regExp(): string {
    const branches = [this.branch()];
    while (this.peek() === '|') {
      this.at += 1;
      branches.push(this.branch());
    }
    return branches.join('|');
  }

  private branch(): string {
    let out = '';
    const start = this.at;
    while (this.at < this.chars.length && this.peek() !== '|' && this.peek() !== ')') {
      const ch = this.peek()!;
      if (ch === '^' || ch === '$') {
        this.anchor(ch, start);
        continue;
      }
      out += this.piece();
    }
    return out;
  }

  /** A `^` opening or `$` closing a top-level alternative is redundant; anywhere else it is refused. */
  private anchor(ch: string, branchStart: number): void {
    const next = this.peek(1);
    const ok = this.depth === 0 && (ch === '^' ? this.at === branchStart : next === undefined || next === '|');
    if (!ok) {
      throw new XsdPatternError(
        `a "${ch}" inside a pattern is ambiguous (XML Schema reads it as the character, other dialects as an anchor): ` +
          `a pattern always matches the whole value, so leave it out, or write ${ch === '^' ? '\\^' : '[$]'} for the character`,
      );
    }
    this.at += 1;
    if (next !== undefined && '?*+{'.includes(next)) throw new XsdPatternError(`the quantifier after "${ch}" has nothing to repeat`);
  }

  private piece(): string {
    const atom = this.atom();
    const quantifier = this.quantifier();
    if (quantifier !== '') {
      const next = this.peek();
      if (next === '?') throw new XsdPatternError(`lazy quantifiers (${quantifier}?) are not supported: XML Schema has none`);
      if (next === '+') throw new XsdPatternError(`possessive quantifiers (${quantifier}+) are not supported`);
      if (next === '*' || next === '{') throw new XsdPatternError(`a quantifier cannot follow the quantifier ${quantifier}`);
    }
    return atom + quantifier;
  }

  private quantifier(): string {
    const ch = this.peek();
    if (ch === '?' || ch === '*' || ch === '+') {
      this.at += 1;
      return ch;
    }
    if (ch !== '{') return '';
    let end = this.at + 1;
    while (end < this.chars.length && this.chars[end] !== '}') end += 1;
    const body = this.chars.slice(this.at + 1, end).join('');
    const match = /^(\d+)(,(\d*))?$/.exec(body);
    if (end >= this.chars.length || match === null)
      throw new XsdPatternError(`"{${body.slice(0, 20)}" is not a quantifier {n}, {n,} or {n,m}: write \\{ for the character`);
    const count = (digits: string) => (digits.length > 7 ? Infinity : Number(digits));
    const min = count(match[1]!);
    const max = match[3] === undefined || match[3] === '' ? undefined : count(match[3]);
    if (min > MAX_REPEAT || (max !== undefined && max > MAX_REPEAT))
      throw new XsdPatternError(`repetition counts above ${MAX_REPEAT} are not supported ({${body.slice(0, 20)}})`);
    if (max !== undefined && max < min) throw new XsdPatternError(`the quantifier {${body}} has its minimum above its maximum`);
    this.at = end + 1;
    return `{${min}${match[2] === undefined ? '' : `,${max ?? ''}`}}`;
  }

  private atom(): string {
    const ch = this.peek()!;
    this.at += 1;
    switch (ch) {
      case '(': {
        if (this.peek() === '?') throw new XsdPatternError(this.groupConstruct());
        this.depth += 1;
        const inner = this.regExp();
        this.depth -= 1;
        if (this.peek() !== ')') throw new XsdPatternError('a "(" is never closed');
        this.at += 1;
        return `(?:${inner})`;
      }
      case '[':
        return emitSet(this.charClass());
      case '\\':
        return this.escape();
      case '.':
        return emitSet(single(WILDCARD));
      case '?':
      case '*':
      case '+':
        throw new XsdPatternError(`the quantifier "${ch}" at character ${this.at} has nothing to repeat`);
      case '{':
      case '}':
        throw new XsdPatternError(`a "${ch}" that is not part of a quantifier must be escaped (\\${ch})`);
      case ']':
        throw new XsdPatternError('a "]" outside a character class must be escaped (\\])');
      default:
        return literal(ch.codePointAt(0)!);
    }
  }

  /** The `(?...` construct a pattern used, for the refusal. */
  private groupConstruct(): string {
    const rest = this.chars.slice(this.at, this.at + 4).join('');
    if (rest.startsWith('?=') || rest.startsWith('?!')) return 'lookahead ((?= and (?!) is not supported';
    if (rest.startsWith('?<=') || rest.startsWith('?<!')) return 'lookbehind ((?<= and (?<!) is not supported';
    if (rest.startsWith('?<') || rest.startsWith('?P<') || rest.startsWith("?'"))
      return 'named groups ((?<name>...)) are not supported: write (...)';
    if (rest.startsWith('?:')) return 'non-capturing groups ((?:...)) are not XML Schema syntax: write (...), which captures nothing here';
    if (rest.startsWith('?>')) return 'atomic groups ((?>...)) are not supported';
    if (/^\?[a-zA-Z-]/.test(rest)) return 'inline flags such as (?i) are not supported';
    return '"(?" is not XML Schema syntax';
  }

  private escape(): string {
    const ch = this.peek();
    if (ch === undefined) throw new XsdPatternError('a pattern cannot end with a lone "\\"');
    const set = this.classEscape();
    if (set !== undefined) return emitSet(single(set));
    throw new XsdPatternError(unsupportedEscape(ch));
  }

  /** After a `\`: a single character (as an item), a multi-character escape or a property; else undefined. */
  private classEscape(): Item | undefined {
    const ch = this.peek()!;
    if (Object.hasOwn(SINGLE_CHAR_ESCAPES, ch)) {
      this.at += 1;
      const cp = SINGLE_CHAR_ESCAPES[ch]!;
      return explicitItem([[cp, cp]]);
    }
    const lower = ch.toLowerCase();
    if (Object.hasOwn(MULTI_CHAR_ESCAPES, lower) && 'sSiIcCdDwW'.includes(ch)) {
      this.at += 1;
      const item = MULTI_CHAR_ESCAPES[lower]!;
      return ch === lower ? item : complementItem(item);
    }
    if (ch === 'p' || ch === 'P') {
      if (this.peek(1) !== '{') throw new XsdPatternError(`\\${ch} needs a name in braces, such as \\${ch}{Lu} or \\${ch}{IsBasicLatin}`);
      let end = this.at + 2;
      while (end < this.chars.length && this.chars[end] !== '}' && end - this.at < 80) end += 1;
      if (this.chars[end] !== '}') throw new XsdPatternError(`\\${ch}{ is never closed`);
      const item = propertyItem(this.chars.slice(this.at + 2, end).join(''));
      this.at = end + 1;
      return ch === 'p' ? item : complementItem(item);
    }
    return undefined;
  }

  /** After `[`: a positive or negative group, optionally minus a nested class, and the closing `]`. */
  private charClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.at += 1;
    const items: Item[] = [];
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) throw new XsdPatternError('a "[" is never closed');
      if (ch === ']') {
        if (items.length === 0) throw new XsdPatternError('a character class cannot be empty ([] or [^])');
        this.at += 1;
        return [{ negated, items: compacted(items) }];
      }
      if (ch === '-' && this.peek(1) === '[') {
        if (items.length === 0) throw new XsdPatternError('a character class subtraction needs something to subtract from ([a-z-[aeiou]])');
        this.at += 2;
        const subtracted = this.charClass();
        if (this.peek() !== ']') throw new XsdPatternError('a subtraction -[...] must end its character class');
        this.at += 1;
        return intersect([{ negated, items: compacted(items) }], complement(subtracted));
      }
      if (ch === '-' && items.length > 0 && this.peek(1) !== ']') {
        throw new XsdPatternError('a "-" inside a character class must be escaped (\\-) unless it is first or last');
      }
      if (ch === '[') throw new XsdPatternError('a "[" inside a character class must be escaped (\\[) or start a subtraction -[...]');
      items.push(this.classItem());
    }
  }

  /** One character, range or escape inside a class. */
  private classItem(): Item {
    const start = this.classChar();
    if (typeof start !== 'number') return start;
    if (this.peek() !== '-' || this.peek(1) === ']' || this.peek(1) === '[' || this.peek(1) === undefined)
      return explicitItem([[start, start]]);
    this.at += 1;
    const end = this.classChar();
    if (typeof end !== 'number') throw new XsdPatternError('a range in a character class cannot end with a class escape such as \\d');
    if (end < start) throw new XsdPatternError(`the range ${String.fromCodePoint(start)}-${String.fromCodePoint(end)} is out of order`);
    return explicitItem([[start, end]]);
  }

  /** A code point (a literal or single-character escape), or the item of a multi-character escape. */
  private classChar(): number | Item {
    const ch = this.peek()!;
    this.at += 1;
    if (ch === '[') throw new XsdPatternError('a "[" inside a character class must be escaped (\\[)');
    if (ch !== '\\') return ch.codePointAt(0)!;
    const next = this.peek();
    if (next === undefined) throw new XsdPatternError('a "[" is never closed');
    if (Object.hasOwn(SINGLE_CHAR_ESCAPES, next)) {
      this.at += 1;
      return SINGLE_CHAR_ESCAPES[next]!;
    }
    const item = this.classEscape();
    if (item === undefined) throw new XsdPatternError(unsupportedEscape(next));
    return item;
  }
}

/**
 * An XSD pattern in RE2 syntax, to be matched against the whole value (the caller anchors it).
 * Throws XsdPatternError naming the construct when the pattern is not in the dialect.
 */
export function translateXsdPattern(source: string): string {
  if (source.includes('\u0000')) throw new XsdPatternError('a pattern cannot contain U+0000 (NUL)');
  return new Translator(source).translate();
}
