// Issue 15: no list statement computes its total with a window function. A window count beside
// `ORDER BY … LIMIT` needs every match before the first row, so an index on the sort column cannot
// stop early. Drizzle has no window builder here, so a window can only enter a statement as SQL
// text in the source: scanning every module of functions/ and shared/ covers every list statement
// the repositories build, including lists still to come. The record list builder is also rendered
// for every variant and count mode, and the users page statement, which the benchmarks run too.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { listSql } from '#functions/data/records/query/compile.ts';
import { parseListQuery } from '#functions/data/records/query/list-query.ts';
import { userPageStatement } from '#functions/console/users/user-repository.ts';
import { pageWindowSql } from '#shared/db/counted-page.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/**
 * `count(…) over`, `sum(…) over (…)`, `over ()`: an aggregate over a window, which a total would need.
 * Ranking windows (`row_number() over (partition by …)`, populate's per-parent limit) count nothing.
 */
const WINDOW = /\b(?:count|sum|avg|min|max)\s*\((?:[^()]|\([^()]*\))*\)\s*over\b|\bover\s*\(\s*\)/i;

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

const dialect = new PgDialect();

function descriptor(provider: 'flat_table' | 'jsonb'): TableDescriptor {
  return {
    schemaName: 'tenant_a',
    tableName: 'items',
    provider,
    primaryKey: ['id'],
    softDelete: true,
    search: { sourceFields: ['title'] },
    fields: [
      { name: 'id', type: 'integer', constraints: {} },
      { name: 'title', type: 'string', constraints: {} },
      { name: 'price', type: 'number', constraints: {} },
      { name: 'is_deleted', type: 'boolean', constraints: {} },
    ],
  };
}

describe('list statements', () => {
  it('has no window function in any module of functions/ or shared/', async () => {
    const files = [...(await sourceFiles(join(ROOT, 'functions'))), ...(await sourceFiles(join(ROOT, 'shared')))];
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const match = WINDOW.exec(text);
      if (match) offenders.push(`${relative(ROOT, file)}: ${match[0]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('recognises the window forms it bans', () => {
    for (const text of [
      '(count(*) over ())::int as total',
      'count(*)  OVER ( )',
      'sum(x) over (partition by y)',
      'count(coalesce(a, b)) over (partition by c)',
    ]) {
      expect(WINDOW.test(text), text).toBe(true);
    }
    expect(WINDOW.test('row_number() over (partition by p order by x)')).toBe(false);
    expect(WINDOW.test('select count(*) from t where a over b')).toBe(false);
  });

  it.each(['flat_table', 'jsonb'] as const)('builds every %s record list without a window, for every _count', (provider) => {
    const table = descriptor(provider);
    const queries = [
      '',
      'price__gt=3&_sort=-price&page=4',
      'search=lamp',
      'search=lamp&_sort=price',
      '_aggregate=count(*),sum(price)&_group_by=title',
      '_aggregate=count(*)',
      'limit=5&offset=10&include_deleted=true',
    ];
    for (const query of queries) {
      for (const count of ['exact', 'planned', 'none']) {
        const text = dialect.sqlToQuery(listSql(table, parseListQuery(table, new URLSearchParams(`${query}&_count=${count}`)))).sql;
        expect(text, `${query} _count=${count}`).not.toMatch(/\bover\b/i);
        if (count === 'exact') expect(text).toMatch(/\(select count\(\*\) as total from \(select 1\b/);
        else expect(text).not.toMatch(/count\(\*\) as total from/);
      }
    }
  });

  it('builds the users page with its total as a subquery of its own', () => {
    const text = dialect.sqlToQuery(userPageStatement({ search: 'ann', ordering: [], page: { page: 2, pageSize: 20 } })).sql;
    expect(text).not.toMatch(/\bover\b/i);
    expect(text).toMatch(/\(select count\(\*\)::int as total from platform\.users u where/);
  });

  it('writes a first page window as literals and a deeper offset as a parameter', () => {
    // A parameter in LIMIT or OFFSET makes PostgreSQL price the generic plan as if a tenth of the
    // rows were wanted, so a prepared list is planned anew on every run (record-lists.test.ts).
    expect(dialect.sqlToQuery(pageWindowSql(21, 0))).toMatchObject({ sql: 'limit 21 offset 0', params: [] });
    expect(dialect.sqlToQuery(pageWindowSql(21, 40))).toMatchObject({ sql: 'limit 21 offset $1', params: [40] });
    for (const [limit, offset] of [
      [0, 0],
      [1.5, 0],
      [Number.NaN, 0],
      [21, -20],
      [21, 2 ** 60],
    ]) {
      expect(() => pageWindowSql(limit!, offset!), `${limit} ${offset}`).toThrow(/out of range/);
    }
    const first = dialect.sqlToQuery(userPageStatement({ search: 'ann', ordering: [], page: { page: 1, pageSize: 20 } }));
    expect(first.sql).toMatch(/limit 20 offset 0$/);
    const third = dialect.sqlToQuery(userPageStatement({ search: 'ann', ordering: [], page: { page: 3, pageSize: 20 } }));
    expect(third.sql).toMatch(/limit 20 offset \$\d+$/);
    expect(third.params.at(-1)).toBe(40);
  });
});
