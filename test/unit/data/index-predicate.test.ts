import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { parsePredicate, PredicateError } from '#functions/data/tables/index-predicate.ts';
import { renderPredicate, sqlLiteral } from '#functions/data/tables/index-predicate-sql.ts';

const FIELDS = new Set(['age', 'status', 'email', 'active', 'score']);
const dialect = new PgDialect();
const rendered = (text: string) => {
  const query = dialect.sqlToQuery(renderPredicate(parsePredicate(text, FIELDS), (field) => sql`${sql.identifier(field)}`));
  expect(query.params).toEqual([]);
  return query.sql;
};

describe('index predicate grammar', () => {
  it.each([
    ['a number comparison', 'age >= 18', '("age" >= 18)'],
    ['a decimal', 'score < 2.5', '("score" < 2.5)'],
    ['a quoted string with a doubled quote', "status = 'it''s'", `("status" = E'it''s')`],
    ['!= as <>', "status != 'gone'", `("status" <> E'gone')`],
    ['booleans', 'active = true', '("active" = true)'],
    ['is null', 'email is null', '("email" is null)'],
    ['is not null, case-insensitive keywords', 'email IS NOT NULL', '("email" is not null)'],
    ['and binding tighter than or', "age > 1 or age < 0 and status = 'x'", `(("age" > 1) or (("age" < 0) and ("status" = E'x')))`],
    ['parentheses', "(age > 1 or age < 0) and status = 'x'", `((("age" > 1) or ("age" < 0)) and ("status" = E'x'))`],
    ['not', 'not active = true', '(not ("active" = true))'],
  ])('accepts %s', (_label, text, expected) => {
    expect(rendered(text)).toBe(expected);
  });

  it('keeps a backslash in a string literal literal', () => {
    expect(rendered(String.raw`status = 'a\b'`)).toBe(String.raw`("status" = E'a\\b')`);
  });
});

describe('index predicate refusals', () => {
  it.each([
    ['a statement separator', 'age = 1; drop table y', /unexpected character ";"/],
    ['a trailing second statement after a string', "status = 'a'; drop table y", /unexpected character ";"/],
    ['a line comment', 'age = 1 -- and more', /unexpected character "-"/],
    ['a block comment', 'age = 1 /* x */', /unexpected character "\/"/],
    ['a function call', 'lower(email) = 1', /"lower" is not a field/],
    ['a function call as the value', 'age = now()', /"now" is not a value/],
    ['an unterminated quote', "status = 'abc", /unexpected character "'"/],
    ['a double-quoted identifier', '"age" = 1', /unexpected character """/],
    ['an unknown field', 'salary > 1', /"salary" is not a field of the table/],
    ['a field compared with a field', 'age = score', /"score" is not a value/],
    ['= null', 'email = null', /is null/],
    ['a missing value', 'age >', /expected a value/],
    ['a missing operator', 'age 1', /expected a comparison/],
    ['an unknown operator word', "email like 'a%'", /expected a comparison/],
    ['a dangling and', 'age > 1 and', /expected a field/],
    ['an unclosed parenthesis', '(age > 1', /expected "\)"/],
    ['a stray closing parenthesis', 'age > 1)', /unexpected "\)"/],
    ['a cast', 'age::text = 1', /unexpected character ":"/],
    ['a subquery', 'age in (select 1)', /expected a comparison/],
    ['an empty predicate', '   ', /expected a predicate/],
    ['a too long predicate', `${'age > 1 and '.repeat(100)}age > 1`, /longer than 1000/],
  ])('refuses %s', (_label, text, reason) => {
    expect(() => parsePredicate(text, FIELDS)).toThrow(PredicateError);
    expect(() => parsePredicate(text, FIELDS)).toThrow(reason);
  });

  it('treats a quote inside a string as data, never as the end of the literal', () => {
    const sqlText = rendered("status = 'x''; drop table y; --'");

    expect(sqlText).toBe(`("status" = E'x''; drop table y; --')`);
  });
});

describe('DDL literals', () => {
  const text = (value: Parameters<typeof sqlLiteral>[0]) => dialect.sqlToQuery(sqlLiteral(value)).sql;

  it('renders null, booleans and numbers bare and strings as escaped E-strings', () => {
    expect([text(null), text(true), text(false), text(-2.5)]).toEqual(['null', 'true', 'false', '-2.5']);
    expect(text(String.raw`O'Brien\n`)).toBe(String.raw`E'O''Brien\\n'`);
  });

  it('refuses non-finite numbers and NUL characters', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(PredicateError);
    expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow(PredicateError);
    expect(() => sqlLiteral('a\u0000b')).toThrow(/NUL/);
  });
});
