// The query language compiler on its own: parsing of every parameter form, the SQL it emits (values
// always as parameters), the case and null rules, and every 400 it answers.
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { compileCondition } from '#functions/data/records/query/filters.ts';
import { aggregateSql, listSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery, type ListPlan } from '#functions/data/records/query/list-query.ts';
import { ValidationError } from '#shared/errors.ts';

const dialect = new PgDialect();

function table(provider: 'flat_table' | 'jsonb'): TableDescriptor {
  return {
    schemaName: 'tenant_a',
    tableName: 'shop_items',
    provider,
    primaryKey: ['id'],
    softDelete: true,
    search: { sourceFields: ['name'] },
    fields: [
      { name: 'id', type: 'string', format: 'uuid', constraints: {}, generated: 'uuid' },
      { name: 'name', type: 'string', constraints: { required: true } },
      { name: 'price', type: 'number', constraints: {} },
      { name: 'qty', type: 'integer', constraints: {} },
      { name: 'in_stock', type: 'boolean', constraints: {} },
      { name: 'released', type: 'date', constraints: {} },
      { name: 'meta', type: 'object', constraints: {} },
      { name: 'tags', type: 'array', constraints: {} },
      { name: 'is_deleted', type: 'boolean', constraints: {} },
    ],
  };
}

const flat = table('flat_table');
const jsonb = table('jsonb');

function plan(query: string, descriptor = flat): ListPlan {
  return parseListQuery(descriptor, new URLSearchParams(query));
}

function whereOf(query: string, descriptor = flat): { sql: string; params: unknown[] } {
  const [filter] = plan(query, descriptor).filters;
  return dialect.sqlToQuery(compileCondition(descriptor, filter!));
}

function rejection(query: string, descriptor = flat): ValidationError {
  try {
    for (const filter of plan(query, descriptor).filters) compileCondition(descriptor, filter);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected ${query} to be refused`);
}

describe('filter operators', () => {
  it.each([
    ['price=5', 't."price" = $1::text::double precision', ['5']],
    ['price__gt=5', 't."price" > $1::text::double precision', ['5']],
    ['price_gte=5', 't."price" >= $1::text::double precision', ['5']],
    ['qty__lt=5', 't."qty" < $1::text::bigint', ['5']],
    ['qty__lte=5', 't."qty" <= $1::text::bigint', ['5']],
    ['qty__ne=5', 't."qty" is distinct from $1::text::bigint', ['5']],
    ['qty__in=1,2', 't."qty" = any($1::text[]::bigint[])', [['1', '2']]],
    ['qty__ins=1,2', 't."qty" = any($1::text[]::bigint[])', [['1', '2']]],
    ['qty__nin=1,2', '(t."qty" is null or not (t."qty" = any($1::text[]::bigint[])))', [['1', '2']]],
    ['qty__between=1,2', 't."qty" between $1::text::bigint and $2::text::bigint', ['1', '2']],
    ['qty__nbetween=1,2', '(t."qty" is null or not (t."qty" between $1::text::bigint and $2::text::bigint))', ['1', '2']],
    ['name__contains=a_b', `t."name" like $1 escape '\\'`, ['%a\\_b%']],
    ['name__containss=50%', `t."name" like $1 escape '\\'`, ['%50\\%%']],
    ['name__icontains=Ab', `t."name" ilike $1 escape '\\'`, ['%Ab%']],
    ['name__ncontains=x', `(t."name" is null or not (t."name" like $1 escape '\\'))`, ['%x%']],
    ['name__nicontains=x', `(t."name" is null or not (t."name" ilike $1 escape '\\'))`, ['%x%']],
    ['name__startswith=x', `t."name" like $1 escape '\\'`, ['x%']],
    ['name__startswiths=x', `t."name" like $1 escape '\\'`, ['x%']],
    ['name__istartswith=x', `t."name" ilike $1 escape '\\'`, ['x%']],
    ['name__nstartswith=x', `(t."name" is null or not (t."name" like $1 escape '\\'))`, ['x%']],
    ['name__endswith=x', `t."name" like $1 escape '\\'`, ['%x']],
    ['name__endswiths=x', `t."name" like $1 escape '\\'`, ['%x']],
    ['name__iendswith=x', `t."name" ilike $1 escape '\\'`, ['%x']],
    ['name__nendswith=x', `(t."name" is null or not (t."name" like $1 escape '\\'))`, ['%x']],
    ['name__ina=A,b', 'lower(t."name") in (select lower(v) from unnest($1::text[]) as v)', [['A', 'b']]],
    ['name__nina=A', '(t."name" is null or not (lower(t."name") in (select lower(v) from unnest($1::text[]) as v)))', [['A']]],
    ['name__null=true', 't."name" is null', []],
    ['name__null=false', 't."name" is not null', []],
    ['name__nnull=true', 't."name" is not null', []],
    ['in_stock=true', 't."in_stock" = $1::text::boolean', ['true']],
    ['released__gte=2024-01-31', 't."released" >= $1::text::date', ['2024-01-31']],
    ['meta__contains={"a":1}', 't."meta" @> $1::jsonb', ['{"a":1}']],
    ['tags__contains=["x"]', 't."tags" @> $1::jsonb', ['["x"]']],
    ['meta__contained_by={"a":1}', 't."meta" <@ $1::jsonb', ['{"a":1}']],
    ['meta__has_key=a', 't."meta" ? $1', ['a']],
    ['meta__has_any_keys=a,b', 't."meta" ?| $1::text[]', [['a', 'b']]],
    ['meta__has_all_keys=a,b', 't."meta" ?& $1::text[]', [['a', 'b']]],
    ['meta__color=red', '(t."meta" #>> $1::text[]) = $2::text', [['color'], 'red']],
    ['meta__size__w__gt=3', `(case when jsonb_typeof((t."meta" #> $1::text[])) = 'number' then (t."meta" #>> $2::text[])::double precision end) > $3::text::double precision`, [['size', 'w'], ['size', 'w'], '3']],
  ])('compiles %s on a flat table', (query, expected, params) => {
    const compiled = whereOf(query);
    expect(compiled.sql).toBe(expected);
    expect(compiled.params).toEqual(params);
  });

  it('reads jsonb fields as typed expressions of the data column', () => {
    expect(whereOf('price__gt=5', jsonb).sql).toBe(`(t."data"->>'price')::double precision > $1::text::double precision`);
    expect(whereOf('name__icontains=a', jsonb).sql).toBe(`(t."data"->>'name') ilike $1 escape '\\'`);
    expect(whereOf('meta__contains={}', jsonb).sql).toBe(`(t."data"->'meta') @> $1::jsonb`);
    expect(whereOf('id=00000000-0000-0000-0000-000000000000', jsonb).sql).toBe('t."id" = $1::text::uuid');
  });

  it.each([
    ['price__gt=abc', 'price__gt'],
    ['qty=1.5', 'qty'],
    ['in_stock=maybe', 'in_stock'],
    ['released=2024-13-45', 'released'],
    ['qty__between=1', 'qty__between'],
    ['name__null=perhaps', 'name__null'],
    ['nope=1', 'nope'],
    ['nope__gt=1', 'nope__gt'],
    ['name__bogus=1', 'name__bogus'],
    ['name__has_key=a', 'name__has_key'],
    ['meta__gt=1', 'meta__gt'],
    ['meta__contains={bad', 'meta__contains'],
    ['author.name__eq=x', 'author.name__eq'],
    ["name'; drop table x;--=1", "name'; drop table x;--"],
    ['meta__a b=1', 'meta__a b'],
  ])('refuses %s naming %s', (query, parameter) => {
    const error = rejection(query);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fieldErrors ?? {})).toEqual([parameter]);
  });
});

describe('list parameters', () => {
  it('defaults to page 1 of 20 and caps page_size and limit at 1000', () => {
    expect(plan('')).toMatchObject({ page: 1, pageSize: 20, offset: 0, deleted: 'exclude' });
    expect(plan('page=3&page_size=1000')).toMatchObject({ page: 3, pageSize: 1000, offset: 2000 });
    expect(plan('limit=10&offset=25')).toMatchObject({ page: 3, pageSize: 10, offset: 25 });
    for (const query of ['page_size=1001', 'limit=1001', 'page=0', 'page=-1', 'page_size=x', 'offset=1;', 'limit=5&page=2']) {
      expect(() => plan(query), query).toThrow(ValidationError);
    }
  });

  it('sorts by fields with - descending and always ends with the primary key', () => {
    const parsed = plan('_sort=-price,name');
    expect(parsed.sort.map((term) => [term.name, term.descending])).toEqual([['price', true], ['name', false]]);
    expect(dialect.sqlToQuery(listSql(flat, parsed)).sql).toContain('order by t."price" desc, t."name" asc, t."id" asc');
    expect(plan('ordering=qty').sort[0]!.name).toBe('qty');
    expect(rejection('_sort=nope').fieldErrors).toEqual({ _sort: ['unknown field "nope"'] });
    expect(() => plan('_sort=author.name')).toThrow(/not supported yet/);
  });

  it('searches with websearch_to_tsquery, ranks, and orders by rank unless sorted', () => {
    const compiled = dialect.sqlToQuery(listSql(flat, plan('search=red shoes')));
    expect(compiled.sql).toContain('websearch_to_tsquery($');
    expect(compiled.sql).toContain('order by rank desc');
    expect(compiled.params).toContain('red shoes');
    expect(compiled.params).toContain('simple');
    expect(dialect.sqlToQuery(listSql(flat, plan('search=x&_sort=name'))).sql).not.toContain('rank desc');
    expect(() => plan('search=x', { ...flat, search: undefined })).toThrow(/no search_vector/);
  });

  it('hides soft-deleted records unless include_deleted or only_deleted', () => {
    expect(dialect.sqlToQuery(listSql(flat, plan(''))).sql).toContain('t."is_deleted" is not true');
    expect(dialect.sqlToQuery(listSql(flat, plan('include_deleted=true'))).sql).not.toContain('is_deleted" is');
    expect(dialect.sqlToQuery(listSql(flat, plan('only_deleted=true'))).sql).toContain('t."is_deleted" is true');
  });

  it('parses aggregates and group fields into named values', () => {
    const parsed = plan('_aggregate=count(*),sum(price),count_distinct(name),avg(qty),min(released),max(price),count(meta)&_group_by=in_stock');
    expect(parsed.aggregates!.map((aggregate) => aggregate.alias)).toEqual([
      'count', 'sum_price', 'count_distinct_name', 'avg_qty', 'min_released', 'max_price', 'count_meta',
    ]);
    const compiled = dialect.sqlToQuery(aggregateSql(flat, parsed));
    expect(compiled.sql).toContain('group by t."in_stock"');
    expect(compiled.params).toEqual(expect.arrayContaining(['count', 'sum_price']));
  });

  it.each([
    ['_aggregate=median(price)', '_aggregate'],
    ['_aggregate=sum(*)', '_aggregate'],
    ['_aggregate=sum(name)', '_aggregate'],
    ['_aggregate=sum(nope)', '_aggregate'],
    ['_aggregate=count(*);drop', '_aggregate'],
    ['_aggregate=count(*)&_group_by=nope', '_group_by'],
    ['_group_by=name', '_group_by'],
    ['_aggregate=count(*)&_sort=price', '_sort'],
    ['populate=author', 'populate'],
    ['format=tree', 'format'],
    ['include=children', 'include'],
    ['depth=2', 'depth'],
    ['graph_types=x', 'graph_types'],
    ['include_deleted=maybe', 'include_deleted'],
    ['price=1&price=2', 'price'],
    ['search=', 'search'],
  ])('refuses %s naming %s', (query, parameter) => {
    const error = rejection(query);
    expect(Object.keys(error.fieldErrors ?? {})).toEqual([parameter]);
  });

  it('never puts a value into the SQL text', () => {
    const evil = `x' or 1=1; drop table shop_items; --`;
    const query = new URLSearchParams({ name: evil, name__icontains: evil, meta__k: evil, search: evil, _sort: '-price' });
    const compiled = dialect.sqlToQuery(listSql(flat, parseListQuery(flat, query)));
    expect(compiled.sql).not.toContain('drop table');
    expect(compiled.params).toContain(evil);
  });
});
