// validate_data and a bulk insert of the same rows give the same verdict for every row: the values
// of each corpus field as one batch, and batches that repeat primary keys and unique values (the
// same instant written with two offsets, equal intervals written two ways, composite keys).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { BATCH_CASES, FIELD_CASES } from '#test/support/table-schema-corpus.ts';

/** The 1-based rows validate_data names, from its `Row N: ...` messages. */
function rowsNamedByValidate(errors: string[]): number[] {
  return [...new Set(errors.map((message) => Number(/^Row (\d+):/.exec(message)![1])))].sort((a, b) => a - b);
}

/** The 1-based rows a refused bulk insert names, from its `index.field` details. */
function rowsNamedByInsert(details: Record<string, string[]>): number[] {
  return [...new Set(Object.keys(details).map((key) => Number(key.split('.')[0]) + 1))].sort((a, b) => a - b);
}

describe.each(['flat_table', 'jsonb'])('validate_data and bulk insert on %s tables', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let tables = 0;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Batch Site')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Batches' })).status).toBe(201);
    expect((await call('POST', '/api/apps/batches/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  /** Both verdicts on one batch in a fresh table: the rows each names, and whether the insert stored any. */
  async function verdicts(schema: Record<string, unknown>, rows: unknown[]) {
    tables += 1;
    const name = `b${tables}`;
    expect((await call('POST', '/api/apps/batches/datasources/main/datatables/', { name, json_schema: schema })).status).toBe(201);
    expect((await call('POST', `/api/apps/batches/datatables/${name}/materialize/`)).status).toBe(200);
    const checked = await call('POST', `/api/apps/batches/datatables/${name}/validate_data/`, { data: rows });
    expect(checked.status).toBe(200);
    const inserted = await call('POST', `/api/apps/batches/datatables/${name}/data/`, rows);
    expect([201, 400]).toContain(inserted.status);
    const stored = await call('GET', `/api/apps/batches/datatables/${name}/data/`);
    return {
      validate: checked.body.is_valid ? [] : rowsNamedByValidate(checked.body.errors),
      insert: inserted.status === 201 ? [] : rowsNamedByInsert(inserted.body.details),
      stored: stored.body.total as number,
    };
  }

  it('names the same rows for the values of every corpus field', { timeout: 300_000 }, async () => {
    for (const fieldCase of FIELD_CASES.filter((c) => c.values.length > 0)) {
      const schema = { fields: [{ name: 'id', type: 'integer' }, fieldCase.field], primaryKey: ['id'] };
      const rows = fieldCase.values.map((value, index) => ({ id: index + 1, v: value }));
      const { validate, insert, stored } = await verdicts(schema, rows);
      expect(insert, fieldCase.id).toEqual(validate);
      expect(stored, fieldCase.id).toBe(validate.length === 0 ? rows.length : 0);
    }
  });

  it.each(BATCH_CASES.map((c) => [c.id, c] as const))('names the same rows for the batch %s', async (_id, batch) => {
    const { validate, insert, stored } = await verdicts(batch.schema, batch.rows);
    expect(insert).toEqual(validate);
    expect(stored).toBe(validate.length === 0 ? batch.rows.length : 0);
  });

  it('refuses a repeated key, the same instant and equal intervals as the database would', async () => {
    const byId = Object.fromEntries(BATCH_CASES.map((c) => [c.id, c]));
    expect((await verdicts(byId['primary-key-repeated']!.schema, byId['primary-key-repeated']!.rows)).validate).toEqual([2]);
    expect((await verdicts(byId['unique-same-instant']!.schema, byId['unique-same-instant']!.rows)).validate).toEqual([2]);
    expect((await verdicts(byId['composite-repeated']!.schema, byId['composite-repeated']!.rows)).validate).toEqual([2]);
    expect((await verdicts(byId['unique-nulls']!.schema, byId['unique-nulls']!.rows)).validate).toEqual([]);
    // A flat table's interval column compares PT36H and P1DT12H equal; a jsonb table's index compares text.
    expect((await verdicts(byId['unique-equal-intervals']!.schema, byId['unique-equal-intervals']!.rows)).validate).toEqual(
      provider === 'flat_table' ? [2] : [],
    );
  });
});
