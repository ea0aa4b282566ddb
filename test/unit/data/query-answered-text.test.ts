// Must show the SQL behind the record query language's answered-text, JSON-null and grouped-order
// rules: text operators read the answered form of a typed column, `ina` on a typed field is the
// column against typed values (what an index on it serves), a jsonb table's JSON field keeps its
// stored member where an index may serve and reads a JSON null as SQL null elsewhere, and grouped
// pages end their order with the group fields.
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { compileCondition } from '#functions/data/records/query/filters.ts';
import { listSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery } from '#functions/data/records/query/list-query.ts';

const dialect = new PgDialect();

function table(provider: 'flat_table' | 'jsonb'): TableDescriptor {
  return {
    schemaName: 'tenant_a',
    tableName: 'probe_items',
    provider,
    primaryKey: ['id'],
    softDelete: false,
    fields: [
      { name: 'id', type: 'integer', constraints: {} },
      { name: 'at', type: 'datetime', constraints: {} },
      { name: 'day', type: 'date', constraints: {} },
      { name: 'qty', type: 'integer', constraints: {} },
      { name: 'meta', type: 'object', constraints: {} },
    ],
  };
}

function whereOf(query: string, provider: 'flat_table' | 'jsonb' = 'flat_table'): { sql: string; params: unknown[] } {
  const descriptor = table(provider);
  const [filter] = parseListQuery(descriptor, new URLSearchParams(query)).filters;
  return dialect.sqlToQuery(compileCondition(descriptor, filter!));
}

describe('text operators on typed fields', () => {
  it('match a flat datetime column in its answered ISO 8601 form, the value escaped', () => {
    // Act
    const compiled = whereOf('at__contains=T1_%');

    // Assess
    expect(compiled.sql).toBe(`((to_json(t."at" at time zone 'UTC') #>> '{}') || 'Z') like $1 escape '\\'`);
    expect(compiled.params).toEqual(['%T1\\_\\%%']);
  });

  it('match a flat date column in its JSON form, whatever the DateStyle', () => {
    expect(whereOf('day__startswith=2024').sql).toBe(`(to_json(t."day") #>> '{}') like $1 escape '\\'`);
  });

  it('compile ina on a typed field to the column against typed values, dropping items of no value', () => {
    // Act
    const compiled = whereOf('at__ina=2024-02-17t10:00:00z,garbage,%');
    const negated = whereOf('qty__nina=1,x');

    // Assess
    expect(compiled).toMatchObject({ sql: 't."at" = any($1::text[]::timestamptz[])', params: [['2024-02-17T10:00:00Z']] });
    expect(negated).toMatchObject({ sql: '(t."qty" is null or not (t."qty" = any($1::text[]::bigint[])))', params: [['1']] });
  });
});

describe('JSON fields of a jsonb table', () => {
  it('test nulls on the member read as SQL null for a JSON null', () => {
    expect(whereOf('meta__null=true', 'jsonb').sql).toBe(`nullif((t."data"->'meta'), 'null'::jsonb) is null`);
    expect(whereOf('meta__nnull=true', 'jsonb').sql).toBe(`nullif((t."data"->'meta'), 'null'::jsonb) is not null`);
  });

  it('test containment, keys and equality on the stored member, which an index on the field is built on', () => {
    expect(whereOf('meta__contains={"a":1}', 'jsonb').sql).toBe(`(t."data"->'meta') @> $1::jsonb`);
    expect(whereOf('meta__has_key=a', 'jsonb').sql).toBe(`(t."data"->'meta') ? $1`);
    expect(whereOf('meta={"a":1}', 'jsonb').sql).toBe(`(t."data"->'meta') = $1::jsonb`);
  });

  it('read a JSON null as SQL null where it would pass the test', () => {
    expect(whereOf('meta__contains=null', 'jsonb').sql).toBe(`nullif((t."data"->'meta'), 'null'::jsonb) @> $1::jsonb`);
    expect(whereOf('meta=null', 'jsonb').sql).toBe(`nullif((t."data"->'meta'), 'null'::jsonb) = $1::jsonb`);
    expect(whereOf('meta__contained_by=[null]', 'jsonb').sql).toBe(`nullif((t."data"->'meta'), 'null'::jsonb) <@ $1::jsonb`);
  });

  it('leave the flat column as it is', () => {
    expect(whereOf('meta__null=true').sql).toBe('t."meta" is null');
    expect(whereOf('meta__contains=null').sql).toBe('t."meta" @> $1::jsonb');
  });
});

describe('grouped pages', () => {
  it.each([
    ['_aggregate=count(*)&_group_by=qty,day&_sort=-count', 'order by count(*)::int desc, t."qty" asc, t."day" asc'],
    ['_aggregate=count(*)&_group_by=qty,day&_sort=-day', 'order by t."day" desc, t."qty" asc'],
    ['_aggregate=count(*)&_group_by=qty', 'order by t."qty" asc'],
  ])('order %s by the sort, then by the group fields it does not name', (query, order) => {
    const descriptor = table('flat_table');
    const text = dialect.sqlToQuery(listSql(descriptor, parseListQuery(descriptor, new URLSearchParams(query)))).sql;
    // The whole order: the page's limit follows it.
    expect(text).toMatch(new RegExp(`${order.replace(/[()*.]/g, '\\$&')}\\s+limit `));
  });
});
