// Table Schemas stored before the stricter rules of issue 13 (datetime and time bounds and defaults
// without an offset or seconds, JavaScript-only patterns, duplicate enum members, keys now refused):
// strict on save, tolerant on read. Such a schema is written straight into the datatables row, as an
// older release left it (and marked by tenant migration 14 as read in JavaScript's pattern dialect),
// and the table is then used through the API only.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

/** The schema as it is saved now; the stored one below means the same in the forms accepted before. */
const STRICT = {
  fields: [
    { name: 'id', type: 'integer' },
    {
      name: 'at',
      type: 'datetime',
      default: '2024-06-01T10:00:00Z',
      constraints: { minimum: '2024-01-01T00:00:00Z', maximum: '2024-12-31T23:59:00Z' },
    },
    { name: 'slot', type: 'datetime', constraints: { enum: ['2024-06-01T10:00:00Z', '2024-06-01T11:00:00Z'] } },
    { name: 'opens', type: 'time', constraints: { minimum: '09:00:00' } },
    { name: 'code', type: 'string', constraints: { pattern: '[a-z]+' } },
    { name: 'tag', type: 'string', constraints: { pattern: '\\w+' } },
    { name: 'kind', type: 'string', constraints: { enum: ['a', 'b'] } },
    { name: 'size', type: 'integer' },
  ],
  primaryKey: ['id'],
};

const STORED = {
  fields: [
    { name: 'id', type: 'integer' },
    {
      name: 'at',
      type: 'datetime',
      default: '2024-06-01T10:00',
      constraints: { minimum: '2024-01-01T00:00:00', maximum: '2024-12-31 23:59' },
    },
    { name: 'slot', type: 'datetime', constraints: { enum: ['2024-06-01T12:00:00+0200', '2024-06-01 11:00'] } },
    { name: 'opens', type: 'time', constraints: { minimum: '09:00' } },
    { name: 'code', type: 'string', constraints: { pattern: '(?:[a-z])+' } },
    // The same text means another thing in each dialect: JavaScript's \w is [A-Za-z0-9_].
    { name: 'tag', type: 'string', constraints: { pattern: '\\w+' } },
    { name: 'kind', type: 'string', constraints: { enum: ['a', 'b', 'a'] } },
    { name: 'size', type: 'integer', format: 'any', bareNumber: false },
  ],
  primaryKey: ['id'],
  missingValues: [''],
};

describe.each(['flat_table', 'jsonb'])('a Table Schema stored before the strict rules, on %s tables', (provider) => {
  let app: TestApp;
  let admin: string;
  let site: { slug: string; headers: Record<string, string> };
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: site.headers });
  const TABLE = '/api/apps/old/datatables/events/';
  const DATA = `${TABLE}data/`;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, `Stored ${provider}`);
    expect((await call('POST', '/api/apps/', { name: 'Old' })).status).toBe(201);
    expect((await call('POST', '/api/apps/old/datasources/', { name: 'Main', provider_type: provider })).status).toBe(201);
    expect((await call('POST', '/api/apps/old/datasources/main/datatables/', { name: 'events', json_schema: STRICT })).status).toBe(201);
    expect((await call('POST', `${TABLE}materialize/`)).status).toBe(200);
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    await app.runtime.db.run(
      sql`update ${sql.identifier(row!.schema_name)}.datatables set json_schema = ${JSON.stringify(STORED)}::jsonb, schema_hash = ${'e'.repeat(64)}, pattern_dialect = 'ecmascript'
        where name = 'events'`,
    );
  });
  afterAll(async () => {
    await app.close();
  });

  it('is read as written: the table, its schema and its records answer', async () => {
    const detail = await call('GET', TABLE);
    expect(detail.status).toBe(200);
    expect(detail.body.json_schema).toEqual(STORED);
    expect(detail.body.field_count).toBe(8);
    expect((await call('GET', `${TABLE}schema/`)).status).toBe(200);
    expect((await call('GET', DATA)).status).toBe(200);
  });

  it('judges records by the stored bounds, enum, pattern and default, alike in validate_data and writes', async () => {
    const rows: [Record<string, unknown>, boolean][] = [
      [{ id: 1 }, true],
      [{ id: 2, at: '2024-03-01T00:00:00+02:00', slot: '2024-06-01T10:00:00Z', opens: '09:00:00', code: 'abc', kind: 'a', size: 3 }, true],
      [{ id: 3, slot: '2024-06-01T13:00:00+02:00' }, true],
      [{ id: 4, at: '2023-12-31T23:59:59Z' }, false],
      [{ id: 5, at: '2025-01-01T00:00:00Z' }, false],
      [{ id: 6, slot: '2024-06-01T12:00:00Z' }, false],
      [{ id: 7, opens: '08:59:59' }, false],
      [{ id: 8, code: 'ABC' }, false],
      [{ id: 9, kind: 'c' }, false],
      // JavaScript's \w, as the pattern meant when it was saved (XML Schema's would refuse "_" and take "é").
      [{ id: 10, tag: 'a_b' }, true],
      [{ id: 11, tag: 'é' }, false],
    ];
    for (const [record, valid] of rows) {
      const checked = await call('POST', `${TABLE}validate_data/`, { data: [record] });
      expect(checked.status).toBe(200);
      expect(checked.body.is_valid, JSON.stringify(record)).toBe(valid);
      const written = await call('POST', DATA, record);
      expect(written.status, JSON.stringify(written.body)).toBe(valid ? 201 : 400);
    }
    const defaulted = await call('GET', `${DATA}1/`);
    expect(defaulted.body.data.at).toBe('2024-06-01T10:00:00Z');
    // A record read back is accepted unchanged.
    const full = await call('GET', `${DATA}2/`);
    const { id: _id, ...fields } = full.body.data;
    expect((await call('PATCH', `${DATA}2/`, fields)).status).toBe(200);
    expect((await call('POST', `${TABLE}validate_data/`, { data: [full.body.data] })).body).toMatchObject({ is_valid: true, errors: [] });
  });

  it('is not saved again in the old forms: a schema change must use the strict ones, naming what to fix', async () => {
    const refused = await call('PATCH', TABLE, {
      json_schema: { ...STORED, fields: [...STORED.fields, { name: 'note', type: 'string' }] },
    });
    expect(refused.status).toBe(400);
    const problems: string[] = refused.body.json_schema;
    expect(problems.some((p) => p.includes('"missingValues" is not supported'))).toBe(true);
    expect(problems.some((p) => p.includes('Field "at": minimum "2024-01-01T00:00:00" is not a valid datetime value'))).toBe(true);
    expect(problems.some((p) => p.includes('Field "code": pattern "(?:[a-z])+" cannot be used: non-capturing groups'))).toBe(true);
    expect(problems.some((p) => p.includes('Field "kind": enum lists a value more than once'))).toBe(true);
    expect(problems.some((p) => p.includes('Field "tag"'))).toBe(false);
  });

  it.runIf(provider === 'flat_table')('migrates from the stored schema to a strict one, keeping the records', async () => {
    const next = { ...STRICT, fields: [...STRICT.fields, { name: 'note', type: 'string' }] };
    const preview = await call('POST', `${TABLE}preview-changes/`, { new_schema: next });
    expect(preview.status).toBe(200);
    expect(preview.body.operations.map((op: { type: string }) => op.type)).toContain('add_column');
    // \w+ is read as XML Schema's from now on: the row its old reading let in blocks the change until fixed.
    expect(preview.body.warnings).toContain('1 row: values that the pattern \\w+ refuses in "tag" (for example 10).');
    expect((await call('PATCH', TABLE, { json_schema: next })).status).toBe(400);
    expect((await call('PATCH', `${DATA}10/`, { tag: 'ab' })).status).toBe(200);
    const changed = await call('PATCH', TABLE, { json_schema: next });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await call('GET', `${DATA}2/`)).body.data).toMatchObject({ code: 'abc', note: null });
    expect((await call('POST', DATA, { id: 20, note: 'x', at: '2024-02-01T00:00:00Z', tag: 'é' })).status).toBe(201);
    expect((await call('POST', DATA, { id: 21, tag: 'a_b' })).status).toBe(400);

    // A rollback brings back the stored schema with JavaScript's reading, once no row breaks it.
    const revision = (await call('GET', `${TABLE}operation-history/`)).body.results[0].revision_id;
    const blocked = await call('POST', `${TABLE}rollback/`, { revision_id: revision });
    expect(blocked.status).toBe(422);
    expect(blocked.body.warnings).toContain('1 rows of "tag" hold values that the pattern \\w+ refuses (for example 20).');
    expect((await call('PATCH', `${DATA}20/`, { tag: 'e' })).status).toBe(200);
    expect((await call('POST', `${TABLE}rollback/`, { revision_id: revision })).status).toBe(200);
    expect((await call('GET', TABLE)).body.json_schema).toEqual(STORED);
    expect((await call('POST', DATA, { id: 22, tag: 'a_b' })).status).toBe(201);
  });
});
