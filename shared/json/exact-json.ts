// JSON with exact integers: integer literals beyond 2^53 parse as bigint instead of being rounded to
// the nearest double, and bigints stringify as their digits. Node 20 has neither JSON.parse's source
// text nor JSON.rawJSON, so big literals are found by a scan of the text and carried through the
// built-in parser as marked strings. Texts without such a literal (nearly all) take JSON.parse alone.

/** U+0000 cannot occur in a parsed string here: the text is refused when it escapes one (below). */
const MARK = '\u0000';
const UNSAFE_DIGITS = 16;

/** A run of digits long enough to be an unsafe integer, anywhere in the text (strings too). */
const LONG_DIGIT_RUN = new RegExp(`\\d{${UNSAFE_DIGITS}}`);

function isDigit(char: number): boolean {
  return char >= 48 && char <= 57;
}

/** A character of a JSON number literal: a digit, `.`, `e`, `E`, `+` or `-`. */
function inNumber(char: number): boolean {
  return isDigit(char) || char === 46 || char === 101 || char === 69 || char === 43 || char === 45;
}

/** Integer literals outside strings whose magnitude needs more than a double's 53 bits. */
function bigLiterals(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  // Nearly every text has no run of 16 digits at all: one native scan answers for it.
  if (!LONG_DIGIT_RUN.test(text)) return found;
  let index = 0;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char === 34 /* " */) {
      index += 1;
      while (index < text.length && text.charCodeAt(index) !== 34) index += text.charCodeAt(index) === 92 /* \ */ ? 2 : 1;
      index += 1;
    } else if (char === 45 /* - */ || isDigit(char)) {
      const start = index;
      index += 1;
      while (index < text.length && inNumber(text.charCodeAt(index))) index += 1;
      const literal = text.slice(start, index);
      if (/^-?\d+$/.test(literal) && literal.replace('-', '').length >= UNSAFE_DIGITS && !Number.isSafeInteger(Number(literal)))
        found.push([start, index]);
    } else {
      index += 1;
    }
  }
  return found;
}

/** JSON.parse, except that integers past Number.MAX_SAFE_INTEGER come back as exact bigints. */
export function parseExactJson(text: string): unknown {
  const literals = text.length >= UNSAFE_DIGITS ? bigLiterals(text) : [];
  // A text that escapes U+0000 could forge a mark; its big integers stay plain numbers.
  if (literals.length === 0 || /\\u0000/i.test(text)) return JSON.parse(text) as unknown;
  let marked = '';
  let at = 0;
  for (const [start, end] of literals) {
    marked += `${text.slice(at, start)}"\\u0000${text.slice(start, end)}"`;
    at = end;
  }
  marked += text.slice(at);
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(1)) : value,
  ) as unknown;
}

/** JSON.stringify, with bigints written as their digits (JSON numbers) instead of throwing. */
export function stringifyExactJson(value: unknown): string {
  // Without a replacer JSON.stringify runs several times faster; it throws on the first bigint, and
  // only values holding one (rare) pay for the replacer below.
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
  }
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    sawBigint = true;
    return `${MARK}${item.toString()}`;
  });
  return sawBigint ? text.replace(/"\\u0000(-?\d+)"/g, '$1') : text;
}
