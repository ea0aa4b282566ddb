// One record suite run against both storage layouts (flat_table and jsonb) on tables made from a
// TableDescriptor: CRUD, bulk in one statement, upsert, soft delete, validation shapes, search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import {
  createRecords,
  createRecordsAsJson,
  deleteRecord,
  deleteRecordsByFilter,
  deleteRecordsByIds,
  patchRecord,
  patchRecords,
  readRecord,
  upsertRecords,
} from '#functions/data/records/record-service.ts';
import { listRecords } from '#functions/data/records/record-list.ts';
import { AppError, ValidationError } from '#shared/errors.ts';
import { createDataTable, physicalTableName } from '#test/support/data-tables.ts';
import { createEmptyTestDatabase, type TestDatabase } from '#test/support/test-database.ts';
import { loadPatternEngine } from '#shared/text/pattern-engine.ts';

// The descriptors here are written by hand, not compiled from schemas the repositories load the pattern engine for.
await loadPatternEngine();

let test: TestDatabase;
beforeAll(async () => {
  test = await createEmptyTestDatabase();
});
afterAll(async () => {
  await test?.dispose();
});

function products(provider: 'flat_table' | 'jsonb', softDelete: boolean): TableDescriptor {
  return {
    schemaName: 'tenant_records',
    tableName: `products_${provider}_${softDelete ? 'soft' : 'hard'}`,
    provider,
    primaryKey: ['id'],
    softDelete,
    search: { sourceFields: ['name', 'description'] },
    fields: [
      { name: 'id', type: 'string', format: 'uuid', constraints: {}, generated: 'uuid' },
      { name: 'sku', type: 'string', constraints: { unique: true, pattern: '^[A-Z]{3}-\\d+$' } },
      { name: 'name', type: 'string', constraints: { required: true, minLength: 2, maxLength: 40 } },
      { name: 'description', type: 'string', constraints: {} },
      { name: 'price', type: 'number', constraints: { minimum: 0, maximum: 10000 } },
      { name: 'status', type: 'string', constraints: { enum: ['draft', 'live'] }, default: 'draft' },
      { name: 'released', type: 'datetime', constraints: {} },
      { name: 'meta', type: 'object', constraints: {} },
      ...(softDelete ? [{ name: 'is_deleted', type: 'boolean' as const, constraints: {}, default: false }] : []),
    ],
  };
}

function counters(provider: 'flat_table' | 'jsonb'): TableDescriptor {
  return {
    schemaName: 'tenant_records',
    tableName: `counters_${provider}`,
    provider,
    primaryKey: ['id'],
    softDelete: false,
    fields: [
      { name: 'id', type: 'integer', constraints: {}, generated: 'identity' },
      { name: 'label', type: 'string', constraints: { required: true } },
    ],
  };
}

async function failure(work: Promise<unknown>): Promise<AppError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const query = (text: string) => new URLSearchParams(text);

describe.each(['flat_table', 'jsonb'] as const)('records on a %s table', (provider) => {
  const table = products(provider, true);
  const hard = products(provider, false);
  beforeAll(async () => {
    await createDataTable(test.db, table);
    await createDataTable(test.db, hard);
    await createDataTable(test.db, counters(provider));
  });

  it('creates a record with a generated UUID, its default and an ISO datetime', async () => {
    const created = (await createRecords(test.db, table, {
      name: 'Red shoe',
      sku: 'SHO-1',
      price: 20,
      released: '2024-05-01T10:00:00Z',
      meta: { color: 'red' },
    })) as Record<string, unknown>;
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({ name: 'Red shoe', status: 'draft', price: 20, meta: { color: 'red' }, is_deleted: false });
    expect(new Date(created.released as string).toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(created).not.toHaveProperty('search_vector');
    expect(await readRecord(test.db, table, created.id as string)).toEqual(created);
  });

  it.runIf(provider === 'flat_table')('answers the fields in the order the schema declares them, and floats exactly', async () => {
    const created = (
      (await createRecords(test.db, hard, [{ name: 'Order check', price: 0.30000000000000004 }])) as Record<string, unknown>[]
    )[0]!;
    const declared = hard.fields.map((field) => field.name);
    expect(Object.keys(created)).toEqual(declared);
    expect(created.price).toBe(0.30000000000000004);
    expect(Object.keys(await readRecord(test.db, hard, created.id as string))).toEqual(declared);
    const page = await listRecords(test.db, hard, [['name', 'Order check']]);
    expect(Object.keys(page.data[0]!)).toEqual(declared);
    await deleteRecord(test.db, hard, created.id as string);
  });

  it('generates identity keys', async () => {
    const created = JSON.parse(await createRecordsAsJson(test.db, counters(provider), [{ label: 'a' }, { label: 'b' }])) as Record<
      string,
      unknown
    >[];
    expect(created.map((record) => typeof record.id)).toEqual(['number', 'number']);
    expect(created[1]!.id).not.toBe(created[0]!.id);
  });

  // createRecordsAsJson: the statement a POST of an array runs (record-routes.ts).
  it('creates a bulk batch in one statement: a failing row aborts them all', async () => {
    await createRecords(test.db, hard, { name: 'Zero', sku: 'DUP-1' });
    const before = (await listRecords(test.db, hard, query(''))).total ?? 0;
    const error = await failure(
      createRecordsAsJson(test.db, hard, [
        { name: 'One', sku: 'NEW-1' },
        { name: 'Two', sku: 'DUP-1' },
      ]),
    );
    expect(error.status).toBe(400);
    expect(error.message).toBe('Validation failed');
    expect(error.fieldErrors).toEqual({ sku: ['A record with this value already exists.'] });
    expect((await listRecords(test.db, hard, query(''))).total).toBe(before);
    const repeated = await failure(
      createRecordsAsJson(test.db, hard, [
        { name: 'One', sku: 'NEW-1' },
        { name: 'Two', sku: 'NEW-1' },
      ]),
    );
    expect(repeated.fieldErrors).toEqual({ '1.sku': ['The value repeats row 1 of the batch, but this is a unique field.'] });
    expect((await listRecords(test.db, hard, query(''))).total).toBe(before);
    const created = JSON.parse(
      await createRecordsAsJson(
        test.db,
        hard,
        Array.from({ length: 50 }, (_, index) => ({ name: `Item ${index}`, price: index })),
      ),
    );
    expect(created).toHaveLength(50);
    expect((await listRecords(test.db, hard, query(''))).total).toBe(before + 50);
  });

  it('answers validation failures per field before writing', async () => {
    const error = await failure(
      createRecords(test.db, table, {
        sku: 'bad',
        name: 'x',
        price: -1,
        status: 'gone',
        released: 'yesterday',
        extra: 1,
        search_vector: 'x',
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys(error.fieldErrors!).sort()).toEqual(['extra', 'name', 'price', 'released', 'search_vector', 'sku', 'status']);
    expect((await failure(createRecords(test.db, table, { price: 'cheap' }))).fieldErrors).toMatchObject({
      name: ['This field is required.'],
      price: ['Expected a value of type number.'],
    });
  });

  it('lists with filters, sort, pages and total', async () => {
    const page = await listRecords(test.db, hard, query('price__gte=10&price__lt=20&_sort=-price&page=2&page_size=3'));
    expect(page).toMatchObject({ total: 10, page: 2, page_size: 3 });
    expect(page.data.map((record) => record.price)).toEqual([16, 15, 14]);
    const past = await listRecords(test.db, hard, query('price__gte=10&page=99'));
    expect(past).toMatchObject({ data: [], total: 40 });
  });

  it('searches the search vector and ranks the results', async () => {
    await createRecords(test.db, hard, [
      { name: 'Blue lamp', description: 'a lamp lamp lamp for the desk' },
      { name: 'Desk', description: 'wooden, fits a lamp' },
    ]);
    const found = await listRecords(test.db, hard, query('search=lamp'));
    expect(found.data.map((record) => record.name)).toEqual(['Blue lamp', 'Desk']);
    expect(found.data[0]!.rank).toBeGreaterThan(found.data[1]!.rank as number);
  });

  it('aggregates with group by', async () => {
    const result = await listRecords(test.db, hard, query('_aggregate=count(*),sum(price),max(price)&_group_by=status&price__lt=50'));
    expect(result).toEqual({ data: [{ status: 'draft', count: 50, sum_price: 1225, max_price: 49 }], total: 1 });
  });

  it('upserts on a unique field: 201 created then 200 updated', async () => {
    const first = await upsertRecords(test.db, table, { sku: 'UPS-1', name: 'First', price: 1 }, 'sku');
    expect(first.created).toBe(true);
    const second = await upsertRecords(test.db, table, { sku: 'UPS-1', name: 'Second' }, 'sku');
    expect(second.created).toBe(false);
    expect(second.data).toMatchObject({ sku: 'UPS-1', name: 'Second', price: 1, id: (first.data as Record<string, unknown>).id });
    const batch = await upsertRecords(
      test.db,
      table,
      [
        { sku: 'UPS-1', name: 'Third' },
        { sku: 'UPS-2', name: 'New' },
      ],
      'sku',
    );
    expect(batch).toMatchObject({ created: 1, updated: 1, anyInserted: true });
    expect((await failure(upsertRecords(test.db, table, { name: 'x' }, 'name'))).fieldErrors).toHaveProperty('unique_fields');
  });

  it('patches one record and many', async () => {
    const [a, b] = (await createRecords(test.db, table, [
      { name: 'Patch A', price: 1 },
      { name: 'Patch B', price: 2 },
    ])) as Record<string, unknown>[];
    expect(await patchRecord(test.db, table, a!.id as string, { price: 5 })).toMatchObject({ name: 'Patch A', price: 5 });
    const both = await patchRecords(test.db, table, [
      { id: a!.id, name: 'A2' },
      { id: b!.id, price: 9 },
    ]);
    expect(both.map((record) => [record.name, record.price]).sort()).toEqual([
      ['A2', 5],
      ['Patch B', 9],
    ]);
    expect((await failure(patchRecord(test.db, table, a!.id as string, { price: 'x' }))).status).toBe(400);
    expect((await failure(patchRecord(test.db, table, '00000000-0000-0000-0000-000000000000', { price: 1 }))).status).toBe(404);
  });

  it('soft-deletes: hidden from lists unless include_deleted or only_deleted', async () => {
    const created = (await createRecords(test.db, table, { name: 'Doomed', sku: 'DEL-1' })) as Record<string, unknown>;
    await deleteRecord(test.db, table, created.id as string);
    expect((await failure(readRecord(test.db, table, created.id as string))).status).toBe(404);
    expect((await listRecords(test.db, table, query('sku=DEL-1'))).total).toBe(0);
    expect((await listRecords(test.db, table, query('sku=DEL-1&include_deleted=true'))).total).toBe(1);
    expect((await listRecords(test.db, table, query('only_deleted=true'))).data.map((record) => record.sku)).toEqual(['DEL-1']);
    expect((await failure(deleteRecord(test.db, table, created.id as string))).status).toBe(404);
  });

  it('deletes by ids and by filter, never with an empty filter', async () => {
    const made = (await createRecords(test.db, hard, [
      { name: 'Gone 1', price: 9001 },
      { name: 'Gone 2', price: 9002 },
      { name: 'Gone 3', price: 9003 },
    ])) as Record<string, unknown>[];
    const byIds = await deleteRecordsByIds(test.db, hard, `${made[0]!.id},${made[1]!.id}`);
    expect(byIds.deleted).toBe(2);
    expect(byIds.ids.sort()).toEqual([made[0]!.id, made[1]!.id].sort());
    expect(await deleteRecordsByFilter(test.db, hard, '{"price__gt": 9000}')).toEqual({ deleted: 1 });
    expect((await failure(deleteRecordsByFilter(test.db, hard, '{}'))).status).toBe(400);
    expect((await failure(deleteRecordsByFilter(test.db, hard, '{"nope": 1}'))).status).toBe(400);
    const missing = await failure(readRecord(test.db, hard, made[0]!.id as string));
    expect(missing.status).toBe(404);
    expect(missing.extras).toHaveProperty('detail');
  });

  it('keeps the table intact', async () => {
    const [row] = await test.db.rows(sql`select count(*)::int as n from ${physicalTableName(hard)}`);
    expect(row!.n).toBeGreaterThan(0);
  });
});
