// The statement renderer against drizzle's own: for random compositions of every chunk the sql``
// tag makes, and for the platform's real statements (the caller-and-site statement, record lists,
// aggregates, search), the text and values are exactly drizzle's; chunks it does not render itself
// (tables, columns, enums, placeholders, inlined SQL) go to drizzle whole.
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect, integer, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  aroundTemplate,
  filledTemplate,
  renderStatement,
  sentRepeatedly,
  templateOf,
  type StatementTemplate,
} from '#shared/db/render-sql.ts';
import { principalStatement } from '#shared/auth/authenticate.ts';
import { tenantMatchSql } from '#shared/tenancy/resolve-tenant.ts';
import { standingColumns } from '#shared/tenancy/site-access.ts';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { listSql } from '#functions/data/records/query/compile.ts';
import { identifier, MAX_IDENTIFIER_LENGTH, tenantSchemaIdentifier, tenantTable } from '#shared/db/sql-identifiers.ts';
import { parseListQuery } from '#functions/data/records/query/list-query.ts';

const dialect = new PgDialect();

/** Counts the statements handed to drizzle, to tell the renderer's own path from the fallback. */
class CountingDialect extends PgDialect {
  handedOver = 0;
  override sqlToQuery(statement: SQL, invokeSource?: 'indexes') {
    this.handedOver += 1;
    return super.sqlToQuery(statement, invokeSource);
  }
}

function expectSameAsDrizzle(statement: SQL, path: 'own' | 'drizzle' = 'own'): void {
  const expected = dialect.sqlToQuery(statement);
  const counting = new CountingDialect();
  const rendered = renderStatement(statement, counting);
  expect(counting.handedOver).toBe(path === 'own' ? 0 : 1);
  expect({ sql: rendered.sql, params: rendered.params }).toEqual({ sql: expected.sql, params: expected.params });
}

const values = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt(),
  fc.date({ noInvalidDate: true }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string(), fc.integer()), { noNullPrototype: true }),
  fc.uint8Array().map((bytes) => Buffer.from(bytes)),
);

/** Random SQL built the ways the platform builds it: text, values, identifiers, raw, nesting, joins, lists. */
const { statement: statements } = fc.letrec<{ statement: SQL; chunk: unknown }>((tie) => ({
  chunk: fc.oneof(
    { depthSize: 'small' },
    values,
    fc.string().map((name) => sql.identifier(name)),
    fc.string().map((raw) => sql.raw(raw)),
    values.map((value) => sql.param(value)),
    fc.array(values, { maxLength: 3 }).map((list) => sql.param(list)),
    fc.constant(undefined),
    fc.array(values, { maxLength: 4 }),
    tie('statement'),
  ),
  statement: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), fc.array(tie('chunk'), { maxLength: 4 })).map(([texts, chunks]) => {
      const strings = texts.slice(0, chunks.length + 1);
      while (strings.length < chunks.length + 1) strings.push(' ');
      return sql(Object.assign(strings, { raw: strings }) as TemplateStringsArray, ...(chunks.slice(0, strings.length - 1) as never[]));
    }),
    fc.array(tie('statement') as fc.Arbitrary<SQL>, { maxLength: 4 }).map((parts) => sql.join(parts, sql`, `)),
    fc.constant(sql.empty()),
  ),
}));

describe('renderStatement', () => {
  it('renders random compositions of text, values, identifiers and nesting exactly as drizzle does', () => {
    fc.assert(
      fc.property(statements, (statement) => expectSameAsDrizzle(statement)),
      { numRuns: 500 },
    );
  });

  it('renders identifiers with quotes, lists and nested empties as drizzle does', () => {
    expectSameAsDrizzle(sql`select ${sql.identifier('we"ird')} from t where id in ${[1, 'two', null]} ${undefined} ${sql.empty()}`);
  });

  it("quotes the identifier helpers' names as drizzle's identifiers, and still refuses unsafe ones", () => {
    const safeName = fc.stringMatching(/^[a-z_][a-z0-9_]*$/, { maxLength: MAX_IDENTIFIER_LENGTH });
    // Site schemas are named `site_<slug>` (site-service.ts); none is reserved or starts with `pg_`.
    const siteSchema = safeName.map((name) => `site_${name}`.slice(0, MAX_IDENTIFIER_LENGTH));
    fc.assert(
      fc.property(siteSchema, safeName, (schema, name) => {
        const drizzleText = (statement: SQL) => dialect.sqlToQuery(statement).sql;
        expect(renderStatement(sql`select ${identifier(name)}`, dialect).sql).toBe(drizzleText(sql`select ${sql.identifier(name)}`));
        expect(renderStatement(sql`from ${tenantTable({ schemaName: schema }, name)}`, dialect).sql).toBe(
          drizzleText(sql`from ${sql.identifier(schema)}.${sql.identifier(name)}`),
        );
      }),
      { numRuns: 300 },
    );
    expect(() => identifier('a"b')).toThrow(/not a safe identifier/);
    expect(() => tenantTable({ schemaName: 'tenant_a' }, 'x"; drop table t; --')).toThrow(/not a valid table name/);
    for (const schema of ['public', 'platform', 'pg_catalog', 'Tenant', 'a"b']) {
      expect(() => tenantTable({ schemaName: schema }, 'records')).toThrow(/not a valid tenant schema name/);
      expect(() => tenantSchemaIdentifier(schema)).toThrow(/not a valid tenant schema name/);
    }
  });

  it('hands tables, columns, enums, placeholders and inlined values to drizzle, whole', () => {
    const items = pgTable('items', { id: integer('id'), name: text('name') });
    const mood = pgEnum('mood', ['happy', 'sad']);
    const cases: SQL[] = [
      sql`select ${items.name} from ${items} where ${items.id} = ${1}`,
      sql`select ${mood} as kind, ${2}`,
      sql`select * from t where id = ${sql.placeholder('id')}`,
      sql`select ${'inlined'} as a, ${3} as b`.inlineParams(),
      sql`select ${sql`${'nested inline'}`.inlineParams()}, ${4}`,
    ];
    for (const statement of cases) expectSameAsDrizzle(statement, 'drizzle');
  });

  it("renders the platform's statements as drizzle does", () => {
    const descriptor: TableDescriptor = {
      schemaName: 'tenant_a',
      tableName: 'shop_items',
      provider: 'flat_table',
      primaryKey: ['id'],
      softDelete: true,
      search: { sourceFields: ['name'] },
      fields: [
        { name: 'id', type: 'integer', constraints: {}, generated: 'identity' },
        { name: 'name', type: 'string', constraints: { required: true } },
        { name: 'price', type: 'number', constraints: {} },
        { name: 'released', type: 'date', constraints: {} },
        { name: 'meta', type: 'object', constraints: {} },
        { name: 'is_deleted', type: 'boolean', constraints: {} },
      ],
    };
    const jsonbDescriptor: TableDescriptor = { ...descriptor, provider: 'jsonb' };
    const queries = [
      'name=widget&price__gte=2&_sort=-price&page=3&page_size=20',
      'name__icontains=o%27neil&released__gte=2024-01-01&released__lt=2025-01-01&include_deleted=true',
      'price__in=1,2,3&meta__has_key=color&search=red%20shoes',
      'name__nnull=true&price__between=1,9&ordering=name,-id&offset=40&limit=10',
    ];
    for (const table of [descriptor, jsonbDescriptor]) {
      for (const query of queries) expectSameAsDrizzle(listSql(table, parseListQuery(table, new URLSearchParams(query))));
      expectSameAsDrizzle(listSql(table, parseListQuery(table, new URLSearchParams('_aggregate=sum(price),count(*)&_group_by=name'))));
    }
    expectSameAsDrizzle(principalStatement('0b6f3f7e-7c1a-4a55-9d7e-0d6b1f2e3a4b', 'token-id'));
    expectSameAsDrizzle(
      sql`select ${standingColumns(sql`t.site_id`, sql.raw('m'), 7)} from (${tenantMatchSql({ host: 'shop.example.com', tenantHeader: 'shop' })}) t`,
    );
  });
});

describe('a statement sent repeatedly', () => {
  it("renders as drizzle does on every send, and one send's values cannot change the next", () => {
    const statement = sentRepeatedly(sql`select ${1} as a, ${'x'} as b where ${sql`c = ${true}`}`);
    const expected = dialect.sqlToQuery(statement);
    const first = renderStatement(statement, dialect);
    expect(first).toEqual({ sql: expected.sql, params: expected.params });
    first.params[0] = 99;
    first.params.push('more');
    const counting = new CountingDialect();
    const again = renderStatement(statement, counting);
    expect(again).toEqual({ sql: expected.sql, params: expected.params });
    expect(counting.handedOver).toBe(0);
  });
});

describe('a statement template', () => {
  const STAND_IN = '\u0000stand-in';
  // A key bound in two places, among other values, and nested as the record reads nest it.
  const build = (key: string) =>
    sql`select ${sql`r.record from t where t.id = ${key}::text::int and t.kind = ${'a'}`}, (select count(*) from e where e.to_id = ${key}::text::int and e.depth < ${10})`;

  it('renders, filled with any value, exactly as the statement built with that value', () => {
    const template = templateOf(build(STAND_IN), STAND_IN, dialect)!;
    expect(template.slots).toEqual([0, 2]);
    fc.assert(
      fc.property(fc.string(), (key) => {
        const counting = new CountingDialect();
        const rendered = renderStatement(filledTemplate(template, key, build), counting);
        expect(rendered).toEqual({ sql: dialect.sqlToQuery(build(key)).sql, params: dialect.sqlToQuery(build(key)).params });
        expect(counting.handedOver).toBe(0);
      }),
    );
  });

  it('renumbers its values where it is nested after others, and drizzle reads it as built', () => {
    const template = templateOf(build(STAND_IN), STAND_IN, dialect)!;
    const filled = filledTemplate(template, '42', build);
    const outer = (inner: SQL) => sql`select ${'before'} as x, (${inner}) as y where ${sql`z = ${7}`}`;
    const expected = dialect.sqlToQuery(outer(build('42')));
    expect(renderStatement(outer(filled), dialect)).toEqual({ sql: expected.sql, params: expected.params });
    // Drizzle (and anything else reading the chunks) gets the statement built with the value.
    expect(dialect.sqlToQuery(outer(filled))).toEqual(expected);
  });

  it('keeps one fill from changing another, or the template', () => {
    const template = templateOf(build(STAND_IN), STAND_IN, dialect)!;
    const first = renderStatement(filledTemplate(template, '1', build), dialect);
    first.params[0] = 'changed';
    const second = renderStatement(filledTemplate(template, '2', build), dialect);
    expect(second.params).toEqual(['2', 'a', '2', 10]);
    expect(template.params).toEqual([STAND_IN, 'a', STAND_IN, 10]);
  });

  it('makes a statement wrapped around a filled one a template too, filled with the same value', () => {
    const template = templateOf(build(STAND_IN), STAND_IN, dialect)!;
    const around = (inner: SQL) => sql`select g.ok, case when g.ok then (${inner}) end from (select ${'guard'} = ${'guard'} as ok) g`;
    const made = new WeakMap<StatementTemplate, StatementTemplate | null>();
    for (const key of ['1', '2', "o'neil", '$1']) {
      const counting = new CountingDialect();
      const statement = aroundTemplate(filledTemplate(template, key, build), around, made, dialect);
      const expected = dialect.sqlToQuery(around(build(key)));
      expect(renderStatement(statement, counting)).toEqual({ sql: expected.sql, params: expected.params });
      expect(counting.handedOver).toBe(0);
      // Read by drizzle, it is the statement built around the statement built with the key.
      expect(dialect.sqlToQuery(statement)).toEqual(expected);
    }
    const wrapped = made.get(template)!;
    expect(wrapped.slots).toEqual([0, 2]);
    // A statement not made from a template is wrapped as it is.
    const plain = build('3');
    expect(renderStatement(aroundTemplate(plain, around, made, dialect), dialect)).toEqual(renderStatement(around(plain), dialect));
  });

  it('is refused where it could not be filled or renumbered safely', () => {
    // The stand-in bound nowhere.
    expect(templateOf(build('1'), STAND_IN, dialect)).toBeUndefined();
    // Text holding a `$n` of its own (not one of its placeholders).
    expect(templateOf(sql`select '$1' || ${STAND_IN}`, STAND_IN, dialect)).toBeUndefined();
  });
});
