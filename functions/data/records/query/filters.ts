// The filter half of the query language: `<field>=<value>`, `<field>__<op>` / `<field>_<op>` and
// the JSON forms (`field__prop__sub__op`, containment, key tests), parsed against the table's fields
// and compiled to parameterized SQL with the case and null rules of DECISIONS.
import { SAFE_IDENTIFIER } from '#shared/db/sql-identifiers.ts';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { FieldDescriptor, TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { castTo, isJsonField, jsonMember, jsonValue, parseScalar, sqlType, textValue, typedValue } from './field-sql.ts';
import { queryError } from './query-error.ts';
import { escapeLike } from '#shared/text/like-patterns.ts';

const SCALAR_OPERATORS = [
  'gt',
  'gte',
  'lt',
  'lte',
  'ne',
  'in',
  'nin',
  'ina',
  'nina',
  'contains',
  'ncontains',
  'icontains',
  'nicontains',
  'startswith',
  'istartswith',
  'nstartswith',
  'endswith',
  'iendswith',
  'nendswith',
  'between',
  'nbetween',
  'null',
  'nnull',
] as const;
const JSON_OPERATORS = ['contained_by', 'has_key', 'has_any_keys', 'has_all_keys'] as const;
const ALIASES = { containss: 'contains', startswiths: 'startswith', endswiths: 'endswith', ins: 'in' } as const;

export type Operator = 'eq' | (typeof SCALAR_OPERATORS)[number] | (typeof JSON_OPERATORS)[number];

const OPERATOR_NAMES = new Set<string>([...SCALAR_OPERATORS, ...JSON_OPERATORS, ...Object.keys(ALIASES)]);
/** Every operator suffix a filter parameter may carry (`field__gt`), aliases included. */
export const FILTER_OPERATOR_NAMES: readonly string[] = [...OPERATOR_NAMES];
// Longest first, so `field_nicontains` is not read as `field_ni` + `contains`.
const SUFFIXES = [...FILTER_OPERATOR_NAMES].sort((a, b) => b.length - a.length);
const PROPERTY = /^[A-Za-z0-9_-]+$/;

export interface FilterCondition {
  /** The query parameter as sent, for error messages. */
  parameter: string;
  field: FieldDescriptor;
  /** Property path inside a JSON field (`meta__color` → ['color']). */
  path: string[];
  operator: Operator;
  raw: string;
  /** Already compiled elsewhere: a filter on related records (functions/data/relations). */
  compiled?: SQL;
}

function normalized(operator: string): Operator {
  return (ALIASES as Record<string, Operator>)[operator] ?? (operator as Operator);
}

/** Reads a parameter name as a filter, or returns undefined when it names no field at all. */
export function parseFilterKey(table: TableDescriptor, key: string): Omit<FilterCondition, 'raw'> | undefined {
  // A lookup over the field list: a Map of it, made per key, cost more than the few comparisons it saved.
  const fieldNamed = (name: string) => table.fields.find((field) => field.name === name);
  if (key.includes('.')) throw queryError(key, 'filters on related records are not supported yet');
  const exact = fieldNamed(key);
  if (exact) return { parameter: key, field: exact, path: [], operator: 'eq' };
  const parts = key.split('__');
  if (parts.length >= 2) {
    const field = fieldNamed(parts[0]!);
    if (field) {
      const last = parts[parts.length - 1]!;
      const isOperator = OPERATOR_NAMES.has(last);
      const path = parts.slice(1, isOperator ? -1 : undefined);
      if (path.length > 0) {
        if (!isJsonField(field)) throw queryError(key, `unknown operator "${parts.slice(1).join('__')}" for field "${field.name}"`);
        if (path.some((part) => !PROPERTY.test(part)))
          throw queryError(key, 'a JSON property name may hold only letters, digits, "_" and "-"');
      }
      return { parameter: key, field, path, operator: isOperator ? normalized(last) : 'eq' };
    }
    if (SAFE_IDENTIFIER.test(parts[0]!)) throw queryError(key, `unknown field "${parts[0]}"`);
    return undefined;
  }
  for (const suffix of SUFFIXES) {
    if (!key.endsWith(`_${suffix}`)) continue;
    const field = fieldNamed(key.slice(0, -suffix.length - 1));
    if (field) return { parameter: key, field, path: [], operator: normalized(suffix) };
  }
  return undefined;
}

const LIKE_ESCAPE = sql.raw(`escape '\\'`);

function parsed(condition: FilterCondition, raw: string): string {
  const value = parseScalar(condition.field, raw);
  if (value === undefined) throw queryError(condition.parameter, `"${raw}" is not a valid ${condition.field.type}`);
  return value;
}

function listOf(condition: FilterCondition): string[] {
  if (condition.raw === '') throw queryError(condition.parameter, 'expects a comma-separated list');
  return condition.raw.split(',');
}

function booleanOf(condition: FilterCondition): boolean {
  const value = condition.raw.toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw queryError(condition.parameter, 'expects true or false');
}

function negated(value: SQL, positive: SQL): SQL {
  return sql`(${value} is null or not (${positive}))`;
}

const LIKE_OPERATOR = /^(n|i|ni)?(contains|startswith|endswith)$/;

/** Substring, prefix and suffix tests with their case rule and null-matching negation. */
function likeCondition(text: SQL, condition: FilterCondition): SQL | undefined {
  const match = LIKE_OPERATOR.exec(condition.operator);
  if (!match) return undefined;
  const [, prefix = '', kind] = match;
  const body = escapeLike(condition.raw);
  const pattern = kind === 'contains' ? `%${body}%` : kind === 'startswith' ? `${body}%` : `%${body}`;
  const insensitive = prefix.includes('i');
  const positive = insensitive ? sql`${text} ilike ${pattern} ${LIKE_ESCAPE}` : sql`${text} like ${pattern} ${LIKE_ESCAPE}`;
  return prefix.startsWith('n') ? negated(text, positive) : positive;
}

function nullCondition(value: SQL, condition: FilterCondition): SQL | undefined {
  if (condition.operator !== 'null' && condition.operator !== 'nnull') return undefined;
  const wantsNull = booleanOf(condition) === (condition.operator === 'null');
  return wantsNull ? sql`${value} is null` : sql`${value} is not null`;
}

function isCaseInsensitiveIn(condition: FilterCondition): boolean {
  return condition.operator === 'ina' || condition.operator === 'nina';
}

function caseInsensitiveIn(text: SQL, condition: FilterCondition): SQL | undefined {
  if (!isCaseInsensitiveIn(condition)) return undefined;
  const positive = sql`lower(${text}) in (select lower(v) from unnest(${sql.param(listOf(condition))}::text[]) as v)`;
  return condition.operator === 'nina' ? negated(text, positive) : positive;
}

/** Only ASCII letters: `toUpperCase` also turns `ſ` into `S`, which no case rule of ours equates. */
function asciiUpperCase(text: string): string {
  return text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

/**
 * `ina`/`nina` on a field that is not text (a datetime, a duration, a number, a UUID): `in` with its
 * items read whatever their letters' case, so every value `in` matches (`+02:00` offsets, `P1DT21H`
 * for `PT45H`) and every answered text in any case (`2024-02-17t10:00:00z`) matches, and an index
 * on the field serves it as it serves `in`. The letters of these types' forms are upper case, their
 * parsing takes both cases or none; an item that is no value of the type is no record's text, so it
 * matches nothing.
 */
function typedCaseInsensitiveIn(value: SQL, condition: FilterCondition): SQL {
  const items = listOf(condition).flatMap((item) => parseScalar(condition.field, asciiUpperCase(item)) ?? []);
  const positive = sql`${value} = any(${sql.param(items)}::text[]${castTo(condition.field)}[])`;
  return condition.operator === 'nina' ? negated(value, positive) : positive;
}

/** The text operators of a field: on the text records answer, and `ina` typed where the field is not text. */
function textCondition(table: TableDescriptor, value: SQL, condition: FilterCondition): SQL | undefined {
  const { field, operator } = condition;
  if (isCaseInsensitiveIn(condition) && sqlType(field) !== 'text') return typedCaseInsensitiveIn(value, condition);
  if (!LIKE_OPERATOR.test(operator) && !isCaseInsensitiveIn(condition)) return undefined;
  const text = textValue(table, field);
  return likeCondition(text, condition) ?? caseInsensitiveIn(text, condition);
}

function scalarCondition(table: TableDescriptor, condition: FilterCondition): SQL {
  const { field, operator } = condition;
  const value = typedValue(table, field);
  const cast = castTo(field);
  const special = nullCondition(value, condition) ?? textCondition(table, value, condition);
  if (special) return special;
  switch (operator) {
    case 'eq':
      return sql`${value} = ${parsed(condition, condition.raw)}::text${cast}`;
    case 'ne':
      return sql`${value} is distinct from ${parsed(condition, condition.raw)}::text${cast}`;
    case 'gt':
      return sql`${value} > ${parsed(condition, condition.raw)}::text${cast}`;
    case 'gte':
      return sql`${value} >= ${parsed(condition, condition.raw)}::text${cast}`;
    case 'lt':
      return sql`${value} < ${parsed(condition, condition.raw)}::text${cast}`;
    case 'lte':
      return sql`${value} <= ${parsed(condition, condition.raw)}::text${cast}`;
    case 'in':
    case 'nin': {
      const values = listOf(condition).map((item) => parsed(condition, item));
      const positive = sql`${value} = any(${sql.param(values)}::text[]${cast}[])`;
      return operator === 'nin' ? negated(value, positive) : positive;
    }
    case 'between':
    case 'nbetween': {
      const bounds = condition.raw.split(',');
      if (bounds.length !== 2) throw queryError(condition.parameter, 'expects "min,max"');
      const positive = sql`${value} between ${parsed(condition, bounds[0]!)}::text${cast} and ${parsed(condition, bounds[1]!)}::text${cast}`;
      return operator === 'nbetween' ? negated(value, positive) : positive;
    }
    default:
      throw queryError(condition.parameter, `operator "${operator}" does not apply to ${field.type} fields`);
  }
}

function jsonArgument(condition: FilterCondition): string {
  try {
    JSON.parse(condition.raw);
  } catch {
    throw queryError(condition.parameter, 'expects a JSON value');
  }
  return condition.raw;
}

function isNullArgument(condition: FilterCondition): boolean {
  return JSON.parse(jsonArgument(condition)) === null;
}

/**
 * Key tests and containment on a jsonb value. `json` is the value as stored, for the tests a JSON
 * null fails anyway (an index on it serves them); `nullable` reads a JSON null as SQL null, for the
 * tests a JSON null would pass: containing `null` and being contained by `[null]`.
 */
function jsonCondition(json: SQL, condition: FilterCondition, nullable: SQL = json): SQL | undefined {
  switch (condition.operator) {
    case 'contains':
    case 'ncontains': {
      const value = isNullArgument(condition) ? nullable : json;
      const positive = sql`${value} @> ${jsonArgument(condition)}::jsonb`;
      return condition.operator === 'ncontains' ? negated(value, positive) : positive;
    }
    case 'contained_by':
      return sql`${nullable} <@ ${jsonArgument(condition)}::jsonb`;
    case 'has_key':
      return sql`${json} ? ${condition.raw}`;
    case 'has_any_keys':
      return sql`${json} ?| ${sql.param(listOf(condition))}::text[]`;
    case 'has_all_keys':
      return sql`${json} ?& ${sql.param(listOf(condition))}::text[]`;
    default:
      return undefined;
  }
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A property inside a JSON field: compared as text, or as a number when the filter value is one. */
function propertyCondition(json: SQL, condition: FilterCondition): SQL {
  const path = sql`${sql.param(condition.path)}::text[]`;
  const target = sql`(${json} #> ${path})`;
  const text = sql`(${json} #>> ${path})`;
  const special =
    jsonCondition(target, condition) ??
    nullCondition(text, condition) ??
    likeCondition(text, condition) ??
    caseInsensitiveIn(text, condition);
  if (special) return special;
  const number = sql`(case when jsonb_typeof(${target}) = 'number' then ${text}::double precision end)`;
  const comparable = (raw: string): [SQL, SQL] =>
    NUMBER.test(raw) ? [number, sql`${raw}::text::double precision`] : [text, sql`${raw}::text`];
  const compare = (symbol: string): SQL => {
    const [left, right] = comparable(condition.raw);
    return sql`${left} ${sql.raw(symbol)} ${right}`;
  };
  switch (condition.operator) {
    case 'eq':
      return sql`${text} = ${condition.raw}::text`;
    case 'ne':
      return sql`${text} is distinct from ${condition.raw}::text`;
    case 'gt':
      return compare('>');
    case 'gte':
      return compare('>=');
    case 'lt':
      return compare('<');
    case 'lte':
      return compare('<=');
    case 'in':
    case 'nin': {
      const positive = sql`${text} = any(${sql.param(listOf(condition))}::text[])`;
      return condition.operator === 'nin' ? negated(text, positive) : positive;
    }
    case 'between':
    case 'nbetween': {
      const bounds = condition.raw.split(',');
      if (bounds.length !== 2) throw queryError(condition.parameter, 'expects "min,max"');
      const [left, low] = comparable(bounds[0]!);
      const [, high] = comparable(bounds[1]!);
      const positive = sql`${left} between ${low} and ${high}`;
      return condition.operator === 'nbetween' ? negated(left, positive) : positive;
    }
    default:
      throw queryError(condition.parameter, `operator "${condition.operator}" does not apply to a JSON property`);
  }
}

/**
 * A whole object, array, `any` or geo field. The stored member serves the tests a JSON null fails
 * anyway, so an index on the field serves them; the null tests and the tests a JSON null would pass
 * read it as SQL null, as a flat table stores it.
 */
function wholeJsonCondition(table: TableDescriptor, condition: FilterCondition): SQL {
  const member = jsonMember(table, condition.field);
  const nullable = jsonValue(table, condition.field);
  const special = jsonCondition(member, condition, nullable) ?? nullCondition(nullable, condition);
  if (special) return special;
  if (condition.operator !== 'eq' && condition.operator !== 'ne')
    throw queryError(condition.parameter, `operator "${condition.operator}" does not apply to ${condition.field.type} fields`);
  const json = isNullArgument(condition) ? nullable : member;
  const argument = sql`${jsonArgument(condition)}::jsonb`;
  return condition.operator === 'eq' ? sql`${json} = ${argument}` : sql`${json} is distinct from ${argument}`;
}

/** Compiles one parsed filter to a boolean SQL expression. */
export function compileCondition(table: TableDescriptor, condition: FilterCondition): SQL {
  if (condition.compiled !== undefined) return condition.compiled;
  // A JSON null has no properties: `#>` answers SQL null for it, as for an absent field.
  if (condition.path.length > 0) return propertyCondition(jsonMember(table, condition.field), condition);
  if (isJsonField(condition.field)) return wholeJsonCondition(table, condition);
  if ((JSON_OPERATORS as readonly string[]).includes(condition.operator)) {
    throw queryError(condition.parameter, `operator "${condition.operator}" applies only to object and array fields`);
  }
  return scalarCondition(table, condition);
}
