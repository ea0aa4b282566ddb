// The migration planner: which typed steps a schema change becomes, their class and safety, their
// SQL and rollback SQL, and squawk (the PostgreSQL migration linter) over the SQL of a set of schema
// pairs, with every rule it raises answered below.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from '#shared/db/sql.ts';
import { describe, expect, it } from 'vitest';
import { planMigration } from '#functions/data/tables/migrations/migration-plan.ts';
import { planSql, type PlannedStep } from '#functions/data/tables/migrations/migration-steps.ts';
import { compileTable } from '#functions/data/tables/table-schema.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

// Schemas compiled here do not come through the repositories, which load the pattern engine on need.
await loadPatternEngine();

const target = { schemaName: 'site_a', tableName: 'hr_people', provider: 'flat_table' as const, name: 'people' };
const castable = (text: ReturnType<typeof sql>, type: string) => sql`pg_input_is_valid(${text}, '${sql.raw(type)}')`;
const BASE = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string', constraints: { maxLength: 50 } },
    { name: 'age', type: 'string' },
    { name: 'email', type: 'string' },
  ],
  primaryKey: ['id'],
  indexes: [{ name: 'by_email', fields: ['email'] }],
};

function plan(before: unknown, after: unknown, on: typeof target | typeof jsonbTarget = target): PlannedStep[] {
  return planMigration({
    before: compileTable(before, on),
    after: compileTable(after, on),
    afterSchema: after,
    referencedTables: new Map(),
    baseHash: 'a'.repeat(64),
    castable,
  });
}
const jsonbTarget = { ...target, tableName: 'hr_docs', provider: 'jsonb' as const, name: 'docs' };
const withFields = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ ...BASE, ...extra, fields });
const F = BASE.fields;

describe('migration planner', () => {
  it('adds a nullable column as an instant, safe step with a drop as its rollback', () => {
    const steps = plan(BASE, withFields([...F, { name: 'nick', type: 'string' }]));
    expect(steps).toEqual([
      expect.objectContaining({
        type: 'add_column',
        column: 'nick',
        class: 'instant',
        is_safe: true,
        phase: 'transaction',
        sql: ['alter table "site_a"."hr_people" add column "nick" text'],
        rollback_sql: ['alter table "site_a"."hr_people" drop column "nick"'],
      }),
    ]);
  });

  it('refuses nothing but marks a required column without default as breaking, with a preflight over every row', () => {
    const [step] = plan(BASE, withFields([...F, { name: 'code', type: 'string', constraints: { required: true } }]));
    expect(step).toMatchObject({ type: 'add_column', class: 'breaking', is_safe: false, preflight: { predicate: 'true', blocking: true } });
    const [withDefault] = plan(BASE, withFields([...F, { name: 'code', type: 'string', default: 'x', constraints: { required: true } }]));
    expect(withDefault).toMatchObject({ type: 'add_column', class: 'instant', is_safe: true });
    expect(withDefault!.sql[0]).toBe(`alter table "site_a"."hr_people" add column "code" text default E'x'::text not null`);
  });

  it('renames with x-rename-from (and its constraint with it); without the hint drops and adds', () => {
    const hinted = plan(
      BASE,
      withFields([F[0], { name: 'full_name', type: 'string', constraints: { maxLength: 50 }, 'x-rename-from': 'name' }, F[2], F[3]]),
    );
    expect(hinted).toEqual([
      expect.objectContaining({ type: 'rename_column', column: 'full_name', object: 'name', class: 'instant', is_safe: true }),
    ]);
    expect(hinted[0]!.sql).toEqual([
      'alter table "site_a"."hr_people" rename column "name" to "full_name"',
      'alter table "site_a"."hr_people" rename constraint "hr_people_name_max_length" to "hr_people_full_name_max_length"',
    ]);
    expect(hinted[0]!.rollback_sql).toEqual([
      'alter table "site_a"."hr_people" rename constraint "hr_people_full_name_max_length" to "hr_people_name_max_length"',
      'alter table "site_a"."hr_people" rename column "full_name" to "name"',
    ]);
    const unhinted = plan(BASE, withFields([F[0], { name: 'full_name', type: 'string', constraints: { maxLength: 50 } }, F[2], F[3]]));
    expect(unhinted.map((s) => [s.type, s.class])).toEqual([
      ['drop_check', 'instant'],
      ['drop_column', 'destructive'],
      ['add_column', 'instant'],
      ['add_check', 'online'],
    ]);
    expect(unhinted.find((s) => s.type === 'drop_column')!.warning).toMatch(/data will be lost.*x-rename-from/);
  });

  it('narrows a type as a breaking step whose non-converting values become NULL, and widens safely', () => {
    const [narrow] = plan(BASE, withFields([F[0], F[1], { name: 'age', type: 'integer' }, F[3]]));
    expect(narrow).toMatchObject({ type: 'alter_column_type', class: 'breaking', is_safe: false });
    expect(narrow!.sql[0]).toBe(
      `alter table "site_a"."hr_people" alter column "age" type bigint using case when pg_input_is_valid("age"::text, 'bigint') then "age"::text::bigint end`,
    );
    expect(narrow!.preflight!.predicate).toBe(`"age" is not null and not pg_input_is_valid("age"::text, 'bigint')`);
    const back = plan(withFields([F[0], F[1], { name: 'age', type: 'integer' }, F[3]]), BASE);
    expect(back[0]).toMatchObject({ type: 'alter_column_type', class: 'data-dependent', is_safe: true });
    expect(back[0]!.preflight).toBeUndefined();
    expect(back[0]!.rollback_preflight!.predicate).toContain(`pg_input_is_valid("age"::text, 'bigint')`);
  });

  it('sets NOT NULL through a CHECK added NOT VALID in the transaction and validated after it, with a preflight of the NULLs', () => {
    const [step] = plan(BASE, withFields([F[0], F[1], F[2], { name: 'email', type: 'string', constraints: { required: true } }]));
    expect(step).toMatchObject({
      type: 'set_not_null',
      object: 'hr_people_email_not_null',
      class: 'data-dependent',
      is_safe: true,
      preflight: { predicate: '"email" is null', blocking: true },
    });
    expect(step!.sql).toEqual([
      'alter table "site_a"."hr_people" add constraint "hr_people_email_not_null" check ("email" is not null) not valid',
    ]);
    expect(step!.validate_sql).toEqual([
      'alter table "site_a"."hr_people" validate constraint "hr_people_email_not_null"',
      'alter table "site_a"."hr_people" alter column "email" set not null',
      'alter table "site_a"."hr_people" drop constraint if exists "hr_people_email_not_null"',
    ]);
    expect(step!.rollback_sql).toEqual([
      'alter table "site_a"."hr_people" drop constraint if exists "hr_people_email_not_null"',
      'alter table "site_a"."hr_people" alter column "email" drop not null',
    ]);
  });

  it('adds unique with a duplicate preflight, checks NOT VALID then VALIDATE, and builds an index on existing columns CONCURRENTLY', () => {
    const steps = plan(
      BASE,
      withFields(
        [
          F[0],
          F[1],
          { name: 'age', type: 'string', constraints: { maxLength: 3 } },
          { name: 'email', type: 'string', constraints: { unique: true } },
        ],
        {
          indexes: [
            { name: 'by_email', fields: ['email'] },
            { name: 'by_age', fields: ['age'] },
          ],
        },
      ),
    );
    expect(steps.map((s) => [s.type, s.class, s.phase])).toEqual([
      ['add_check', 'online', 'transaction'],
      ['add_unique', 'data-dependent', 'transaction'],
      ['create_index', 'online', 'concurrent'],
    ]);
    expect(steps[1]!.preflight!.describes).toBe('rows sharing a value');
    expect(steps[0]!.sql).toEqual([
      `alter table "site_a"."hr_people" add constraint "hr_people_age_max_length" check (char_length("age") <= 3) not valid`,
    ]);
    expect(steps[0]!.validate_sql).toEqual(['alter table "site_a"."hr_people" validate constraint "hr_people_age_max_length"']);
    // No IF NOT EXISTS: another table's index of the name must fail the build, not stand in for it.
    expect(steps[2]!.sql).toEqual(['create index concurrently "hr_people_by_age" on "site_a"."hr_people" using btree ("age")']);
    const { executed, rollback } = planSql(steps);
    expect(executed[0]).toMatch(/^create index concurrently/);
    expect(executed.at(-1)).toBe('alter table "site_a"."hr_people" validate constraint "hr_people_age_max_length"');
    expect(rollback.at(-1)).toBe('drop index "site_a"."hr_people_by_age"');
  });

  it('builds an index in the transaction when its name is one the table has or gets otherwise', () => {
    // "search_vector_idx" would be the search vector's index, "email_key" a unique constraint's: a
    // failed CONCURRENTLY build is cleaned up by dropping its name on the table, so it must not be those.
    const search = plan(
      BASE,
      withFields(F, {
        indexes: [
          { name: 'by_email', fields: ['email'] },
          { name: 'search_vector_idx', fields: ['age'] },
        ],
      }),
    );
    expect(search.map((s) => [s.type, s.object, s.phase])).toEqual([['create_index', 'hr_people_search_vector_idx', 'transaction']]);
    const unique = plan(
      BASE,
      withFields([F[0], F[1], F[2], { name: 'email', type: 'string', constraints: { unique: true } }], {
        indexes: [
          { name: 'by_email', fields: ['email'] },
          { name: 'email_key', fields: ['age'] },
        ],
      }),
    );
    expect(unique.map((s) => [s.type, s.object, s.phase])).toEqual([
      ['add_unique', 'hr_people_email_key', 'transaction'],
      ['create_index', 'hr_people_email_key', 'transaction'],
    ]);
    const free = plan(
      BASE,
      withFields(F, {
        indexes: [
          { name: 'by_email', fields: ['email'] },
          { name: 'by_age', fields: ['age'] },
        ],
      }),
    );
    expect(free.map((s) => s.phase)).toEqual(['concurrent']);
  });

  it('plans a jsonb table: members renamed, dropped to a tombstone column and retyped by UPDATEs, constraints checked by preflight', () => {
    const steps = plan(
      BASE,
      withFields(
        [
          F[0],
          { name: 'full_name', type: 'string', 'x-rename-from': 'name' },
          { name: 'age', type: 'integer', constraints: { minimum: 0 } },
        ],
        { indexes: [] },
      ),
      jsonbTarget,
    );
    expect(steps.map((s) => [s.type, s.class, s.sql.length])).toEqual([
      ['drop_index', 'instant', 1],
      ['rename_column', 'data-dependent', 1],
      ['drop_column', 'destructive', 2],
      ['alter_column_type', 'breaking', 1],
      ['drop_check', 'instant', 0],
      ['add_check', 'instant', 0],
    ]);
    expect(steps[1]!.sql).toEqual([
      `update "site_a"."hr_docs" set "data" = ("data" - E'name') || jsonb_build_object(E'full_name', ("data" -> E'name')) where "data" ? E'name'`,
    ]);
    expect(steps[2]!.sql[1]).toMatch(
      /^update "site_a"."hr_docs" set "_tomb_[0-9a-f]{24}" = \("data" -> E'email'\), "data" = "data" - E'email' where "data" \? E'email'$/,
    );
    expect(steps[3]!.preflight!.predicate).toBe(
      `("data" -> E'age') is not null and ("data" -> E'age') <> 'null'::jsonb and not pg_input_is_valid(("data" ->> E'age'), 'bigint')`,
    );
    expect(steps[4]!.object).toBe('hr_docs_full_name_max_length');
    expect(steps[5]!.preflight!.describes).toBe('rows breaking hr_docs_age_min');
  });

  it('refuses a primary key change', () => {
    expect(() => plan(BASE, { ...BASE, primaryKey: ['email'] })).toThrow(/primary key/);
  });

  it('lints clean under squawk for a set of schema pairs, every rule it raises answered', () => {
    const pairs: [unknown, unknown][] = [
      [
        BASE,
        withFields([
          ...F,
          { name: 'nick', type: 'string' },
          { name: 'score', type: 'number', default: 0, constraints: { required: true } },
        ]),
      ],
      [
        BASE,
        withFields([F[0], { name: 'full_name', type: 'string', constraints: { maxLength: 50 }, 'x-rename-from': 'name' }, F[2], F[3]]),
      ],
      [BASE, withFields([F[0], F[1], { name: 'age', type: 'integer', constraints: { minimum: 0 } }, F[3]])],
      [BASE, withFields([F[0], F[1], F[2], { name: 'email', type: 'string', constraints: { required: true, unique: true } }])],
      [BASE, withFields([F[0], F[1], F[2]], { indexes: [] })],
      [
        BASE,
        withFields(F, {
          indexes: [
            { name: 'by_email', fields: ['email'] },
            { name: 'by_name', fields: ['name'], unique: true },
          ],
        }),
      ],
    ];
    // Why each rule squawk raises does not apply to how these statements run.
    const answered: Record<string, string> = {
      // Each migration is one transaction (concurrent steps apart): rerunning it is all or nothing, and
      // IF NOT EXISTS would hide a catalog that drifted from the schema.
      'prefer-robust-stmts': 'one transaction per migration',
      // The preview classes type changes (data-dependent or breaking), preflights narrowing, and
      // narrowing needs allow_data_loss: the rewrite under ACCESS EXCLUSIVE is the asked-for change.
      'changing-column-type': 'classed and preflighted',
      // A unique constraint builds its index under the lock; the preflight has counted duplicates, and
      // the 30 s statement_timeout bounds it.
      'disallowed-unique-constraint': 'preflighted and bounded',
      // Dropping and renaming are what the schema asks for; the preview warns of the data loss and the
      // hint makes renames explicit. Clients read the schema's field names.
      'ban-drop-column': 'explicit, warned',
      'renaming-column': 'explicit through x-rename-from',
      // NOT NULL is set after a validated CHECK, so PostgreSQL skips the scan under the lock.
      'adding-not-nullable-field': 'set after a validated CHECK',
      // A constant default is catalog-only since PostgreSQL 11.
      'adding-field-with-default': 'constant defaults are instant',
      // Indexes on columns the same migration adds, renames or retypes must be built in its transaction;
      // the others are built CONCURRENTLY before it.
      'require-concurrent-index-creation': 'only for columns changed in the same transaction',
      // squawk does not know that a CONCURRENTLY step runs outside the migration's transaction.
      'ban-concurrent-index-creation-in-transaction': 'concurrent steps run outside the transaction',
      // Unique constraints cannot be added NOT VALID; checks and foreign keys are.
      'constraint-missing-not-valid': 'unique constraints have no NOT VALID form',
      // DROP INDEX is catalog-only; its short lock is bounded by lock_timeout, and CONCURRENTLY cannot
      // run inside the transaction that keeps the migration all or nothing.
      'require-concurrent-index-deletion': 'catalog-only, inside the atomic transaction',
    };
    const dir = mkdtempSync(path.join(tmpdir(), 'squawk-'));
    // jsonb tables: member renames, drops, type changes and expression indexes.
    const jsonbPairs: [unknown, unknown][] = [
      [
        BASE,
        withFields(
          [
            F[0],
            { name: 'full_name', type: 'string', 'x-rename-from': 'name' },
            { name: 'age', type: 'integer' },
            { name: 'level', type: 'integer', default: 1 },
          ],
          { indexes: [] },
        ),
      ],
      [
        BASE,
        withFields([F[0], F[1], F[2], { name: 'email', type: 'string', constraints: { unique: true } }], {
          indexes: [{ name: 'by_age', fields: ['age'] }],
        }),
      ],
    ];
    const files = [...pairs.map((pair) => ({ pair, on: target })), ...jsonbPairs.map((pair) => ({ pair, on: jsonbTarget }))].map(
      ({ pair: [before, after], on }, index) => {
        const steps = plan(before, after, on);
        const concurrent = steps.filter((s) => s.phase === 'concurrent').flatMap((s) => s.sql);
        const inTransaction = steps.filter((s) => s.phase === 'transaction').flatMap((s) => s.sql);
        const validations = steps.flatMap((s) => s.validate_sql ?? []);
        // As the executor runs it: each CONCURRENTLY step alone with session timeouts (reset after it),
        // then one transaction with both timeouts (set_config(..., true) there, which is SET LOCAL), then
        // each validation in a short transaction of its own with the same timeouts.
        const timeouts = ["set lock_timeout = '5s';", "set statement_timeout = '30s';"];
        const local = ["set local lock_timeout = '5s';", "set local statement_timeout = '30s';"];
        const text = [
          ...concurrent.flatMap((s) => [...timeouts, `${s};`, 'reset lock_timeout;', 'reset statement_timeout;']),
          'begin;',
          ...local,
          ...inTransaction.map((s) => `${s};`),
          'commit;',
          ...validations.flatMap((s) => ['begin;', ...local, `${s};`, 'commit;']),
        ].join('\n');
        const file = path.join(dir, `pair-${index + 1}.sql`);
        writeFileSync(file, `${text}\n`);
        return file;
      },
    );
    let output: string;
    try {
      // The binary package itself (an optional dependency): squawk-cli's wrapper lists platform
      // packages the registry here does not serve, which leaves a lock file `npm ci` refuses.
      output = execFileSync(
        path.resolve('node_modules/@squawk-cli/linux-x64/bin/squawk'),
        ['--reporter', 'json', '--pg-version', '15.0', ...files],
        { encoding: 'utf8' },
      );
    } catch (error) {
      output = (error as { stdout: string }).stdout;
    }
    const findings = JSON.parse(output) as { rule_name: string; file: string; line: number }[];
    const unanswered = findings.filter((f) => answered[f.rule_name] === undefined);
    expect(unanswered).toEqual([]);
  });
});
