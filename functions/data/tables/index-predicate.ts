// The `where` of a declared index, compiled rather than spliced: a small predicate language of
// field comparisons with literals, joined by AND / OR / NOT with parentheses. Fields must exist in
// the table; literals are numbers, single-quoted strings, true, false and null. Anything else is
// refused, so no client text ever reaches DDL except as a checked identifier or a quoted literal.
// This module parses; index-predicate-sql.ts renders the parsed predicate for the DDL builders.

export type PredicateLiteral = string | number | boolean | null;
export type Predicate =
  | { kind: 'and' | 'or'; left: Predicate; right: Predicate }
  | { kind: 'not'; operand: Predicate }
  | { kind: 'compare'; field: string; operator: string; value: PredicateLiteral }
  | { kind: 'null'; field: string; negated: boolean };

export class PredicateError extends Error {}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|('(?:[^']|'')*')|(<=|>=|<>|!=|=|<|>)|([A-Za-z_][A-Za-z0-9_]*)|(\(|\))|(\S))/y;

type Token = { type: 'number' | 'string' | 'op' | 'word' | 'paren'; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (match === null) {
      if (text.slice(start).trim() === '') break;
      throw new PredicateError(`cannot read the predicate at "${text.slice(start, start + 10)}"`);
    }
    if (match[1] !== undefined) tokens.push({ type: 'number', text: match[1] });
    else if (match[2] !== undefined) tokens.push({ type: 'string', text: match[2].slice(1, -1).replace(/''/g, "'") });
    else if (match[3] !== undefined) tokens.push({ type: 'op', text: match[3] });
    else if (match[4] !== undefined) tokens.push({ type: 'word', text: match[4] });
    else if (match[5] !== undefined) tokens.push({ type: 'paren', text: match[5] });
    else if (match[6] !== undefined) throw new PredicateError(`unexpected character "${match[6]}"`);
  }
  return tokens;
}

/** Parses `where` against the table's field names; throws PredicateError with a readable reason. */
export function parsePredicate(text: string, fields: ReadonlySet<string>): Predicate {
  if (text.length > 1000) throw new PredicateError('the predicate is longer than 1000 characters');
  const tokens = tokenize(text);
  let position = 0;
  const peekWord = (word: string) => tokens[position]?.type === 'word' && tokens[position]!.text.toLowerCase() === word;
  const expect = (predicate: boolean, what: string) => {
    if (!predicate) throw new PredicateError(`expected ${what}`);
  };

  function literal(): PredicateLiteral {
    const token = tokens[position++];
    expect(token !== undefined, 'a value');
    if (token!.type === 'number') return Number(token!.text);
    if (token!.type === 'string') return token!.text;
    if (token!.type === 'word') {
      const word = token!.text.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
    }
    throw new PredicateError(`"${token!.text}" is not a value (numbers, 'strings', true, false, null)`);
  }

  function primary(): Predicate {
    if (peekWord('not')) {
      position += 1;
      return { kind: 'not', operand: primary() };
    }
    const token = tokens[position];
    expect(token !== undefined, 'a field or "("');
    if (token!.type === 'paren' && token!.text === '(') {
      position += 1;
      const inner = disjunction();
      expect(tokens[position]?.text === ')', '")"');
      position += 1;
      return inner;
    }
    if (token!.type !== 'word' || !fields.has(token!.text)) throw new PredicateError(`"${token!.text}" is not a field of the table`);
    position += 1;
    if (peekWord('is')) {
      position += 1;
      const negated = peekWord('not');
      if (negated) position += 1;
      expect(peekWord('null'), '"null" after "is"');
      position += 1;
      return { kind: 'null', field: token!.text, negated };
    }
    const operator = tokens[position];
    expect(operator?.type === 'op' && COMPARISONS.has(operator.text), 'a comparison (=, <>, <, <=, >, >=)');
    position += 1;
    const value = literal();
    if (value === null) throw new PredicateError('compare with null using "is null" or "is not null"');
    return { kind: 'compare', field: token!.text, operator: operator!.text === '!=' ? '<>' : operator!.text, value };
  }

  function conjunction(): Predicate {
    let left = primary();
    while (peekWord('and')) {
      position += 1;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  }

  function disjunction(): Predicate {
    let left = conjunction();
    while (peekWord('or')) {
      position += 1;
      left = { kind: 'or', left, right: conjunction() };
    }
    return left;
  }

  expect(tokens.length > 0, 'a predicate');
  const predicate = disjunction();
  if (position < tokens.length) throw new PredicateError(`unexpected "${tokens[position]!.text}"`);
  return predicate;
}
