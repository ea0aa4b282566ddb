// Every class of PostgreSQL error a client's input can reach (22 data exceptions, 23 integrity
// rules, 54 program limits, and the class-42 codes a client's choice of field or name causes) comes
// out of the database API as a 4xx domain error naming the column or constraint where PostgreSQL
// names it; errors that mean our own statement is wrong stay unmapped (a 500). Fed at the database
// API because the services refuse these inputs before any statement runs; the HTTP side of each is
// in test/integration/data/hostile-input.test.ts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckViolationError, ForeignKeyViolationError, UniqueViolationError, readPostgresFailure } from '#shared/db/database-errors.ts';
import { AppError } from '#shared/errors.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '#test/support/test-database.ts';

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('the statement succeeded');
}

describe(`database errors from client input on ${testDriver}`, () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
    await test.db.run(sql`create schema probe`);
    await test.db.run(
      sql`create table probe.parent (id int primary key, code varchar(3), price int constraint parent_price_min check (price >= 0), title text not null default 'x')`,
    );
    await test.db.run(
      sql`create table probe.child (id int primary key, parent_id int constraint child_parent_fkey references probe.parent (id) on delete restrict)`,
    );
    await test.db.run(sql`insert into probe.parent (id) values (1)`);
    await test.db.run(sql`insert into probe.child (id, parent_id) values (1, 1)`);
  });
  afterAll(async () => {
    await test.dispose();
  });

  const dataExceptions: [string, string, ReturnType<typeof sql>][] = [
    ['22001', 'string too long', sql`insert into probe.parent (id, code) values (2, 'toolong')`],
    ['22003', 'numeric out of range', sql`select ${2147483647}::int + 1`],
    ['22007', 'invalid datetime format', sql`select ${'not a date'}::date`],
    ['22008', 'datetime field overflow', sql`select ${'2020-13-45'}::date`],
    ['22012', 'division by zero', sql`select 1 / ${0}::int`],
    ['22015', 'interval field overflow', sql`select ${'P99999999999Y'}::interval`],
    ['22P02', 'invalid text representation', sql`select ${'abc'}::int`],
    ['2201B', 'invalid regular expression', sql`select 'a' ~ ${'('}`],
    ['22023', 'invalid parameter value', sql`select repeat('x', 3) from generate_series(1, 1, ${0}::int)`],
  ];

  it.each(dataExceptions)('maps %s (%s) to 400', async (code, _name, statement) => {
    const error = await failureOf(test.db.rows(statement));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect(readPostgresFailure(error)?.code).toBe(code);
  });

  it('maps 23505 to a unique violation naming the constraint', async () => {
    const error = await failureOf(test.db.run(sql`insert into probe.parent (id) values (1)`));
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect((error as UniqueViolationError).status).toBe(409);
    expect((error as UniqueViolationError).constraint).toBe('parent_pkey');
  });

  it('maps 23503 (a reference to nothing, and a restricted delete) to a reference violation naming the constraint', async () => {
    const missing = await failureOf(test.db.run(sql`insert into probe.child (id, parent_id) values (2, 99)`));
    expect(missing).toBeInstanceOf(ForeignKeyViolationError);
    expect((missing as ForeignKeyViolationError).constraint).toBe('child_parent_fkey');
    const restricted = await failureOf(test.db.run(sql`delete from probe.parent where id = 1`));
    expect(restricted).toBeInstanceOf(ForeignKeyViolationError);
    expect((restricted as AppError).status).toBe(409);
  });

  it('maps 23502 to 400 naming the column', async () => {
    const error = (await failureOf(test.db.run(sql`insert into probe.parent (id, title) values (3, null)`))) as AppError;
    expect(error.status).toBe(400);
    expect(error.fieldErrors).toEqual({ title: ['This field is required.'] });
    expect(error.message).toContain('"title"');
  });

  it('maps 23514 to 400 naming the constraint', async () => {
    const error = await failureOf(test.db.run(sql`insert into probe.parent (id, price) values (4, -1)`));
    expect(error).toBeInstanceOf(CheckViolationError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).message).toContain('"parent_price_min"');
  });

  it('maps the rest of class 23 (an exclusion constraint) to 409 naming the constraint', async () => {
    await test.db.run(
      sql`create table probe.slots (id int, during int4range, constraint slots_no_overlap exclude using gist (during with &&))`,
    );
    await test.db.run(sql`insert into probe.slots values (1, '[1,5)')`);
    const error = (await failureOf(test.db.run(sql`insert into probe.slots values (2, '[3,7)')`))) as AppError;
    expect(readPostgresFailure(error)?.code).toBe('23P01');
    expect(error.status).toBe(409);
    expect(error.message).toContain('"slots_no_overlap"');
  });

  it('maps class 54 (program limits) to 400', async () => {
    const tooLong = (await failureOf(test.db.rows(sql`select repeat('x', ${1_500_000_000}::int) as r`))) as AppError;
    expect(readPostgresFailure(tooLong)?.code).toBe('54000');
    expect(tooLong.status).toBe(400);
    const args = sql.join(
      Array.from({ length: 101 }, (_, i) => sql.raw(String(i))),
      sql`, `,
    );
    const tooMany = (await failureOf(test.db.rows(sql`select concat(${args})`))) as AppError;
    expect(readPostgresFailure(tooMany)?.code).toBe('54023');
    expect(tooMany.status).toBe(400);
  });

  it('maps the class-42 codes a client can cause to 400', async () => {
    const noOperator = (await failureOf(test.db.rows(sql`select min(x) from (values (true)) as v(x)`))) as AppError;
    expect(readPostgresFailure(noOperator)?.code).toBe('42883');
    expect(noOperator.status).toBe(400);
    const duplicateColumn = (await failureOf(test.db.run(sql`create table probe.twice (ctid text)`))) as AppError;
    expect(readPostgresFailure(duplicateColumn)?.code).toBe('42701');
    expect(duplicateColumn.status).toBe(400);
    const duplicateTable = (await failureOf(test.db.run(sql`create table probe.parent (id int)`))) as AppError;
    expect(readPostgresFailure(duplicateTable)?.code).toBe('42P07');
    expect(duplicateTable.status).toBe(400);
  });

  it('leaves errors that mean our statement is wrong unmapped, for a 500', async () => {
    for (const statement of [sql`selec 1`, sql`select nope from probe.parent`, sql`select * from probe.missing`]) {
      const error = await failureOf(test.db.rows(statement));
      expect(error).not.toBeInstanceOf(AppError);
      expect(readPostgresFailure(error)?.code).toMatch(/^42/);
    }
  });
});
