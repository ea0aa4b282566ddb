// Schema evolution through the API: history of materialize, preview with live preflight, migration
// by PATCH, renames, refusals, rollback, and a migration that fails at its third operation.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PEOPLE = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'age', type: 'string' },
  ],
  primaryKey: ['id'],
};

describe('schema evolution API', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  let organization: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const T = '/api/apps/hr/datatables/';
  const columns = async (table: string) =>
    (
      await app.runtime.db.rows<{ column_name: string; data_type: string; is_nullable: string }>(
        sql`select column_name, data_type, is_nullable from information_schema.columns where table_schema = ${schema} and table_name = ${table} order by ordinal_position`,
      )
    ).map((c) => `${c.column_name}:${c.data_type}:${c.is_nullable === 'YES' ? 'null' : 'not null'}`);
  const constraints = async (table: string) =>
    (
      await app.runtime.db.rows<{
        conname: string;
      }>(sql`select conname from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${schema} and t.relname = ${table} and c.contype <> 'n' order by conname`)
    ).map((r) => r.conname);
  const indexes = async (table: string) =>
    (
      await app.runtime.db.rows<{ indexname: string }>(
        sql`select indexname from pg_indexes where schemaname = ${schema} and tablename = ${table} order by indexname`,
      )
    ).map((r) => r.indexname);

  /** A fresh materialized table with rows. */
  const makeTable = async (name: string, json_schema: unknown, rows: unknown[]) => {
    expect((await call('POST', '/api/apps/hr/datasources/main/datatables/', { name, json_schema })).status).toBe(201);
    expect((await call('POST', `${T}${name}/materialize/`)).status).toBe(200);
    if (rows.length > 0) expect((await call('POST', `${T}${name}/data/`, rows)).status).toBe(201);
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const created = await createSite(app, admin, 'Schema Site');
    const site = created.slug;
    organization = created.organization;
    tenant = { 'x-tenant': site };
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site}`))[0]!
      .schema_name;
    await call('POST', '/api/apps/', { name: 'HR' });
    await call('POST', '/api/apps/hr/datasources/', { name: 'Main', provider_type: 'flat_table' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('records the CREATE_TABLE operation of materialize in the operation history', async () => {
    await makeTable('history', PEOPLE, []);
    const history = await call('GET', `${T}history/operation-history/`);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(history.body.results[0]).toMatchObject({ operation_type: 'CREATE_TABLE', status: 'SUCCESS', parent_operation: null });
    expect(history.body.results[0].revision_id).toMatch(/^[0-9a-f]{12}$/);
    expect(history.body.results[0].executed_sql).toContain('create table');
  });

  it('pages the operation history with limit and offset, newest first', async () => {
    await makeTable('paged', PEOPLE, []);
    let current: any = PEOPLE; // `any`: a schema document
    for (const extra of ['a1', 'a2', 'a3']) {
      current = { ...current, fields: [...current.fields, { name: extra, type: 'string' }] };
      expect((await call('PATCH', `${T}paged/`, { json_schema: current })).status).toBe(200);
    }
    const first = await call('GET', `${T}paged/operation-history/?limit=2`);
    expect(first.body.count).toBe(4);
    expect(first.body.results.map((r: { operation_type: string }) => r.operation_type)).toEqual(['ALTER_TABLE', 'ALTER_TABLE']);
    expect(first.body.next).toContain('limit=2&offset=2');
    expect(first.body.previous).toBeNull();
    const second = await call('GET', `${T}paged/operation-history/?limit=2&offset=2`);
    expect(second.body.results.map((r: { operation_type: string }) => r.operation_type)).toEqual(['ALTER_TABLE', 'CREATE_TABLE']);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toContain('limit=2');
    // Each migration's parent is the revision before it.
    expect(first.body.results[0].parent_operation).toBe(first.body.results[1].revision_id);
    expect(second.body.results[0].parent_operation).toBe(second.body.results[1].revision_id);
    expect((await call('GET', `${T}paged/operation-history/?limit=x`)).status).toBe(400);
    // An offset past the end of every history is refused by name, not sent on to the statement's OFFSET (a 500).
    for (const offset of ['99999999999999999999', '9007199254740993', '1000000000']) {
      const far = await call('GET', `${T}paged/operation-history/?offset=${offset}`);
      expect(far.status, offset).toBe(400);
      expect(JSON.stringify(far.body), offset).toContain('offset');
    }
    expect((await call('GET', `${T}paged/operation-history/?offset=999999999`)).body.results).toEqual([]);
  });

  it('adds a nullable column by PATCH: SUCCESS operation, new hash, records see the column', async () => {
    await makeTable('adds', PEOPLE, [{ id: 1, name: 'Ann', age: '40' }]);
    const before = await call('GET', `${T}adds/`);
    const next = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'email', type: 'string' }] };
    const changed = await call('PATCH', `${T}adds/`, { json_schema: next });
    expect(changed.status).toBe(200);
    expect(changed.body.json_schema).toEqual(next);
    expect(changed.body.schema_hash).not.toBe(before.body.schema_hash);
    expect(await columns('hr_adds')).toEqual(['id:bigint:not null', 'name:text:null', 'age:text:null', 'email:text:null']);
    const written = await call('PATCH', `${T}adds/data/1/`, { email: 'ann@example.com' });
    expect(written.status).toBe(200);
    expect(written.body.data).toMatchObject({ id: 1, name: 'Ann', email: 'ann@example.com' });
    const [op] = (await call('GET', `${T}adds/operation-history/?limit=1`)).body.results;
    expect(op).toMatchObject({ operation_type: 'ALTER_TABLE', status: 'SUCCESS', error_message: null });
    expect(op.executed_sql).toContain('add column "email" text');
    expect(op.rollback_sql).toContain('drop column "email"');
    expect(op.alembic_operations).toEqual([expect.objectContaining({ op: 'add_column', column: 'email', class: 'instant' })]);
    expect(op.duration_ms).toBeGreaterThanOrEqual(0);
    expect(op.completed_at).not.toBeNull();
  });

  it('renames with x-rename-from and keeps every value; without the hint the preview says data is lost', async () => {
    await makeTable('renames', PEOPLE, [
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
    const hinted = {
      ...PEOPLE,
      fields: [PEOPLE.fields[0], { name: 'full_name', type: 'string', 'x-rename-from': 'name' }, PEOPLE.fields[2]],
    };
    const unhinted = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'full_name', type: 'string' }, PEOPLE.fields[2]] };
    const lossy = await call('POST', `${T}renames/preview-changes/`, { new_schema: unhinted });
    expect(lossy.status).toBe(200);
    expect(lossy.body.operations.map((o: { type: string }) => o.type)).toEqual(['drop_column', 'add_column']);
    expect(lossy.body.warnings.join(' ')).toMatch(/"name" will be dropped and its data will be lost/);
    const kept = await call('POST', `${T}renames/preview-changes/`, { new_schema: hinted });
    expect(kept.body).toMatchObject({
      is_safe: true,
      warnings: [],
      operations: [{ type: 'rename_column', column: 'full_name', is_safe: true, class: 'instant' }],
    });
    expect((await call('PATCH', `${T}renames/`, { json_schema: hinted })).status).toBe(200);
    const rows = await call('GET', `${T}renames/data/?_sort=id`);
    expect(rows.body.data.map((r: { full_name: string }) => r.full_name)).toEqual(['Ann', 'Bob']);
    expect(rows.body.data[0]).not.toHaveProperty('name');
  });

  it('renames an index named from its column with the column, so a later PATCH can drop it', async () => {
    const indexed = { ...PEOPLE, indexes: [{ fields: ['age'] }] };
    await makeTable('reindexed', indexed, [{ id: 1, name: 'Ann', age: '40' }]);
    expect(await indexes('hr_reindexed')).toEqual(['hr_reindexed_age_1_idx', 'hr_reindexed_pkey']);
    const fields = [PEOPLE.fields[0], PEOPLE.fields[1], { name: 'years', type: 'string', 'x-rename-from': 'age' }];
    expect((await call('PATCH', `${T}reindexed/`, { json_schema: { ...indexed, fields, indexes: [{ fields: ['years'] }] } })).status).toBe(
      200,
    );
    expect(await indexes('hr_reindexed')).toEqual(['hr_reindexed_pkey', 'hr_reindexed_years_1_idx']);
    const plain = [PEOPLE.fields[0], PEOPLE.fields[1], { name: 'years', type: 'string' }];
    const dropped = await call('PATCH', `${T}reindexed/`, { json_schema: { ...PEOPLE, fields: plain } });
    expect(dropped.status).toBe(200);
    expect(await indexes('hr_reindexed')).toEqual(['hr_reindexed_pkey']);
  });

  it('previews a NOT NULL with a live count of the violating rows and their ids, and refuses the PATCH', async () => {
    await makeTable('nulls', PEOPLE, [{ id: 1, name: 'Ann' }, { id: 2 }, { id: 3 }, { id: 4, name: 'Dee' }]);
    const required = {
      ...PEOPLE,
      fields: [PEOPLE.fields[0], { name: 'name', type: 'string', constraints: { required: true } }, PEOPLE.fields[2]],
    };
    const preview = await call('POST', `${T}nulls/preview-changes/`, { new_schema: required });
    expect(preview.status).toBe(200);
    expect(preview.body.is_safe).toBe(false);
    expect(preview.body.operations[0]).toMatchObject({
      type: 'set_not_null',
      column: 'name',
      class: 'data-dependent',
      preflight: { violating_rows: 2, sample_ids: [2, 3] },
    });
    expect(preview.body.estimated_duration_ms).toEqual(expect.any(Number));
    const refused = await call('PATCH', `${T}nulls/`, { json_schema: required, allow_data_loss: true });
    expect(refused.status).toBe(400);
    expect(refused.body.warnings.join(' ')).toMatch(/2 rows: rows with no value/);
    expect(await columns('hr_nulls')).toContain('name:text:null');
  });

  it('refuses an unsafe change without allow_data_loss with the warnings at the top level, applies it with the flag', async () => {
    await makeTable('ages', PEOPLE, [
      { id: 1, age: '41' },
      { id: 2, age: 'old' },
    ]);
    const typed = { ...PEOPLE, fields: [PEOPLE.fields[0], PEOPLE.fields[1], { name: 'age', type: 'integer' }] };
    const refused = await call('PATCH', `${T}ages/`, { json_schema: typed });
    expect(refused.status).toBe(400);
    expect(refused.body.code ?? refused.body.error?.code ?? 'VALIDATION_ERROR').toBe('VALIDATION_ERROR');
    expect(refused.body.warnings.join(' ')).toMatch(/values that do not convert to bigint/);
    expect(refused.body.warnings.join(' ')).toMatch(/for example 2/);
    const history = await call('GET', `${T}ages/operation-history/`);
    expect(history.body.count).toBe(1);
    const applied = await call('PATCH', `${T}ages/`, { json_schema: typed, allow_data_loss: true });
    expect(applied.status).toBe(200);
    const rows = await call('GET', `${T}ages/data/?_sort=id`);
    expect(rows.body.data.map((r: { age: number | null }) => r.age)).toEqual([41, null]);
  });

  it('validate-schema answers valid, errors and warnings', async () => {
    await makeTable('valid', PEOPLE, [{ id: 1, name: 'Ann' }]);
    const ok = await call('POST', `${T}valid/validate-schema/`, { schema: { ...PEOPLE, fields: PEOPLE.fields.slice(0, 2) } });
    expect(ok.body).toEqual({ valid: true, errors: [], warnings: [expect.stringMatching(/"age" will be dropped/)] });
    const bad = await call('POST', `${T}valid/validate-schema/`, { schema: { fields: [{ name: 'x', type: 'nope' }] } });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors[0]).toMatch(/Valid types/);
    const key = await call('POST', `${T}valid/validate-schema/`, { schema: { ...PEOPLE, primaryKey: ['name'] } });
    expect(key.body).toMatchObject({ valid: false, errors: [expect.stringMatching(/primary key/)] });
    // An unmaterialized table whose foreign key targets an unmaterialized table: valid, with a warning.
    expect((await call('POST', '/api/apps/hr/datasources/main/datatables/', { name: 'teams', json_schema: PEOPLE })).status).toBe(201);
    expect((await call('POST', '/api/apps/hr/datasources/main/datatables/', { name: 'members', json_schema: PEOPLE })).status).toBe(201);
    const linked = {
      ...PEOPLE,
      fields: [...PEOPLE.fields, { name: 'team_id', type: 'integer' }],
      foreignKeys: [{ fields: ['team_id'], reference: { resource: 'teams', fields: ['id'] } }],
    };
    const warned = await call('POST', `${T}members/validate-schema/`, { schema: linked });
    expect(warned.body).toEqual({
      valid: true,
      errors: [],
      warnings: ['The foreign key target table "teams" is not materialized; materialize it first.'],
    });
  });

  it('adds checks, unique and an index, rolls the migration back, and refuses a second rollback', async () => {
    await makeTable('rolls', PEOPLE, [{ id: 1, name: 'Ann', age: '5' }]);
    const before = await call('GET', `${T}rolls/`);
    const constrained = {
      ...PEOPLE,
      fields: [
        PEOPLE.fields[0],
        { name: 'name', type: 'string', constraints: { unique: true, maxLength: 10 } },
        PEOPLE.fields[2],
        { name: 'score', type: 'number', default: 1 },
      ],
      indexes: [{ name: 'by_age', fields: ['age'] }],
    };
    const changed = await call('PATCH', `${T}rolls/`, { json_schema: constrained });
    expect(changed.status).toBe(200);
    expect(await constraints('hr_rolls')).toEqual(['hr_rolls_name_key', 'hr_rolls_name_max_length', 'hr_rolls_pkey']);
    expect(await indexes('hr_rolls')).toContain('hr_rolls_by_age');
    const [op] = (await call('GET', `${T}rolls/operation-history/?limit=1`)).body.results;
    const back = await call('POST', `${T}rolls/rollback/`, { revision_id: op.revision_id });
    expect(back.status).toBe(200);
    expect(back.body).toEqual({ success: true, message: expect.any(String), operations_reversed: 4, new_status: 'ROLLED_BACK' });
    const after = await call('GET', `${T}rolls/`);
    expect(after.body.json_schema).toEqual(PEOPLE);
    expect(after.body.schema_hash).toBe(before.body.schema_hash);
    expect(await columns('hr_rolls')).toEqual(['id:bigint:not null', 'name:text:null', 'age:text:null']);
    expect(await constraints('hr_rolls')).toEqual(['hr_rolls_pkey']);
    expect(await indexes('hr_rolls')).toEqual(['hr_rolls_pkey']);
    const twice = await call('POST', `${T}rolls/rollback/`, { revision_id: op.revision_id });
    expect(twice.status).toBe(409);
    expect((await call('POST', `${T}rolls/rollback/`, { revision_id: '000000000000' })).status).toBe(404);
    // Another table's revision is unknown here.
    await makeTable('rolls_other', PEOPLE, []);
    const [foreign] = (await call('GET', `${T}rolls_other/operation-history/?limit=1`)).body.results;
    expect((await call('POST', `${T}rolls/rollback/`, { revision_id: foreign.revision_id })).status).toBe(404);
    expect((await call('POST', `${T}rolls/rollback/`, { revision_id: '__proto__' })).status).toBe(400);
    const history = await call('GET', `${T}rolls/operation-history/?limit=1`);
    expect(history.body.results[0]).toMatchObject({ revision_id: op.revision_id, status: 'ROLLED_BACK' });
  });

  it('keeps a dropped column hidden, out of records, and a rollback within the retention window restores its data', async () => {
    await makeTable('tombs', PEOPLE, [
      { id: 1, name: 'Ann', age: '40' },
      { id: 2, name: 'Bob', age: '50' },
    ]);
    const dropped = { ...PEOPLE, fields: PEOPLE.fields.slice(0, 2) };
    expect((await call('PATCH', `${T}tombs/`, { json_schema: dropped })).status).toBe(200);
    const physical = await columns('hr_tombs');
    expect(physical.slice(0, 2)).toEqual(['id:bigint:not null', 'name:text:null']);
    expect(physical[2]).toMatch(/^_tomb_[0-9a-f]{24}:text:null$/);
    expect((await call('GET', `${T}tombs/data/1/`)).body.data).toEqual({ id: 1, name: 'Ann' });
    expect((await call('POST', `${T}tombs/data/`, { id: 3, name: 'Cy' })).status).toBe(201);
    const [op] = (await call('GET', `${T}tombs/operation-history/?limit=1`)).body.results;
    const back = await call('POST', `${T}tombs/rollback/`, { revision_id: op.revision_id });
    expect(back.status).toBe(200);
    expect(back.body.message).toMatch(/restored with their data/);
    expect(await columns('hr_tombs')).toEqual(['id:bigint:not null', 'name:text:null', 'age:text:null']);
    const rows = await call('GET', `${T}tombs/data/?_sort=id`);
    expect(rows.body.data).toEqual([
      { id: 1, name: 'Ann', age: '40' },
      { id: 2, name: 'Bob', age: '50' },
      { id: 3, name: 'Cy', age: null },
    ]);
  });

  it('refuses the rollback of a type change while values would not convert back', async () => {
    await makeTable('retype', { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'age', type: 'integer' }] }, [{ id: 1, age: 3 }]);
    const widened = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'age', type: 'string' }] };
    expect((await call('PATCH', `${T}retype/`, { json_schema: widened })).status).toBe(200);
    expect((await call('POST', `${T}retype/data/`, { id: 2, age: 'three' })).status).toBe(201);
    const [op] = (await call('GET', `${T}retype/operation-history/?limit=1`)).body.results;
    const refused = await call('POST', `${T}retype/rollback/`, { revision_id: op.revision_id });
    expect(refused.status).toBe(422);
    expect(refused.body.message ?? JSON.stringify(refused.body)).toMatch(/Incompatible data/);
    expect(await columns('hr_retype')).toEqual(['id:bigint:not null', 'age:text:null']);
  });

  it('refuses to roll back an older migration while a later one stands', async () => {
    await makeTable('order', PEOPLE, []);
    const one = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'b1', type: 'string' }] };
    const two = { ...one, fields: [...one.fields, { name: 'b2', type: 'string' }] };
    expect((await call('PATCH', `${T}order/`, { json_schema: one })).status).toBe(200);
    expect((await call('PATCH', `${T}order/`, { json_schema: two })).status).toBe(200);
    const [, older] = (await call('GET', `${T}order/operation-history/`)).body.results;
    expect((await call('POST', `${T}order/rollback/`, { revision_id: older.revision_id })).status).toBe(409);
  });

  it('a migration whose third operation fails leaves catalog, data, schema and hash as they were, with a FAILED operation', async () => {
    await makeTable('faulty', PEOPLE, [{ id: 1, name: 'Ann', age: '7' }]);
    // Index names are schema-wide: an index of another table already holds the name the third step needs.
    await makeTable('holder', PEOPLE, []);
    await app.runtime.db.run(sql.raw(`create index hr_faulty_clash on "${schema}".hr_holder (name)`));
    const before = await call('GET', `${T}faulty/`);
    const catalog = {
      columns: await columns('hr_faulty'),
      constraints: await constraints('hr_faulty'),
      indexes: await indexes('hr_faulty'),
    };
    const next = {
      ...PEOPLE,
      fields: [
        PEOPLE.fields[0],
        { name: 'full_name', type: 'string', 'x-rename-from': 'name' },
        PEOPLE.fields[2],
        { name: 'extra', type: 'string' },
      ],
      indexes: [{ name: 'clash', fields: ['extra'] }],
    };
    const preview = await call('POST', `${T}faulty/preview-changes/`, { new_schema: next });
    expect(preview.body.operations.map((o: { type: string }) => o.type)).toEqual(['rename_column', 'add_column', 'create_index']);
    const failed = await call('PATCH', `${T}faulty/`, { json_schema: next });
    expect(failed.status).toBe(422);
    expect(JSON.stringify(failed.body)).toMatch(/step 3 \(create_index extra\)/);
    const after = await call('GET', `${T}faulty/`);
    expect(after.body.json_schema).toEqual(before.body.json_schema);
    expect(after.body.schema_hash).toBe(before.body.schema_hash);
    expect({
      columns: await columns('hr_faulty'),
      constraints: await constraints('hr_faulty'),
      indexes: await indexes('hr_faulty'),
    }).toEqual(catalog);
    expect((await call('GET', `${T}faulty/data/1/`)).body.data).toEqual({ id: 1, name: 'Ann', age: '7' });
    const [op] = (await call('GET', `${T}faulty/operation-history/?limit=1`)).body.results;
    expect(op).toMatchObject({ operation_type: 'ALTER_TABLE', status: 'FAILED' });
    expect(op.error_message).toMatch(/hr_faulty_clash/);
    const polled = await call('GET', `${T}faulty/operation-history/${op.revision_id}/`);
    expect(polled.body).toMatchObject({ revision_id: op.revision_id, status: 'FAILED' });
  });

  it('two PATCHes from the same base: one applies, the other is refused as stale, no column doubled or lost', async () => {
    await makeTable('racing', PEOPLE, [{ id: 1, name: 'Ann' }]);
    const base = (await call('GET', `${T}racing/`)).body.schema_hash;
    const left = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'left_col', type: 'string' }] };
    const right = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'right_col', type: 'string' }] };
    const answers = await Promise.all([
      call('PATCH', `${T}racing/`, { json_schema: left, schema_hash: base }),
      call('PATCH', `${T}racing/`, { json_schema: right, schema_hash: base }),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!;
    const stored = await call('GET', `${T}racing/`);
    expect(stored.body.json_schema).toEqual(winner.body.json_schema);
    const cols = await columns('hr_racing');
    expect(cols.filter((c) => c.startsWith('left_col') || c.startsWith('right_col'))).toHaveLength(1);
    const names = (stored.body.json_schema.fields as { name: string }[]).map((f) => f.name);
    expect(cols.map((c) => c.split(':')[0])).toEqual(names);
    const loser = answers.find((a) => a.status === 409)!;
    expect(JSON.stringify(loser.body)).toMatch(/schema_hash/);
    // The refused change, made again on the current schema, applies beside the first one.
    const lostName = winner.body.json_schema.fields.some((f: { name: string }) => f.name === 'left_col') ? 'right_col' : 'left_col';
    const merged = { ...winner.body.json_schema, fields: [...winner.body.json_schema.fields, { name: lostName, type: 'string' }] };
    expect((await call('PATCH', `${T}racing/`, { json_schema: merged, schema_hash: base })).status).toBe(409);
    expect((await call('PATCH', `${T}racing/`, { json_schema: merged, schema_hash: winner.body.schema_hash })).status).toBe(200);
    expect((await columns('hr_racing')).map((c) => c.split(':')[0])).toEqual([
      'id',
      'name',
      'age',
      winner.body.json_schema.fields[3].name,
      lostName,
    ]);
  });

  it('lets a view_site member read the history but not preview, migrate or roll back', async () => {
    await makeTable('guarded', PEOPLE, [{ id: 1, name: 'Ann' }]);
    await app.createUser('schema-viewer');
    expect(
      (
        await app.request('POST', `/api/cloud/organizations/${organization}/members/`, {
          token: admin,
          body: { user_slug: 'schema-viewer' },
        })
      ).status,
    ).toBe(201);
    await app.request('POST', `/api/cloud/sites/${tenant['x-tenant']}/users/`, {
      token: admin,
      body: { users: [{ username: 'schema-viewer', permissions: ['view_site'] }] },
    });
    const viewer = (await app.login('schema-viewer', USER_PASSWORD)).access;
    const as = (method: string, path: string, body?: unknown) => app.request(method, path, { token: viewer, body, headers: tenant });
    const next = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'x', type: 'string' }] };
    expect((await as('GET', `${T}guarded/operation-history/`)).status).toBe(200);
    expect((await as('POST', `${T}guarded/preview-changes/`, { new_schema: next })).status).toBe(403);
    expect((await as('POST', `${T}guarded/validate-schema/`, { schema: next })).status).toBe(403);
    expect((await as('PATCH', `${T}guarded/`, { json_schema: next })).status).toBe(403);
    const [op] = (await call('GET', `${T}guarded/operation-history/`)).body.results;
    expect((await as('POST', `${T}guarded/rollback/`, { revision_id: op.revision_id })).status).toBe(403);
  });

  describe('on a jsonb table', () => {
    const J = '/api/apps/hr/datatables/';
    const DOCS = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'string' },
        { name: 'age', type: 'string' },
        { name: 'tags', type: 'array' },
      ],
      primaryKey: ['id'],
    };
    const ROWS = [
      { id: 1, name: 'Ann', age: '41', tags: ['a'] },
      { id: 2, name: 'Bob', age: 'old' },
      { id: 3, age: '7' },
    ];
    const makeDocs = async (name: string) => {
      expect((await call('POST', '/api/apps/hr/datasources/docs/datatables/', { name, json_schema: DOCS })).status).toBe(201);
      expect((await call('POST', `${J}${name}/materialize/`)).status).toBe(200);
      expect((await call('POST', `${J}${name}/data/`, ROWS)).status).toBe(201);
    };
    const records = async (name: string) => (await call('GET', `${J}${name}/data/?_sort=id`)).body.data;
    const with_ = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ ...DOCS, ...extra, fields });
    const [ID, NAME, AGE, TAGS] = DOCS.fields;

    beforeAll(async () => {
      expect((await call('POST', '/api/apps/hr/datasources/', { name: 'Docs', provider_type: 'jsonb' })).status).toBe(201);
    });

    it('renames with the hint, adds with a default, drops (and a rollback restores) a member, keeping every value', async () => {
      await makeDocs('jmoves');
      const next = with_([
        ID,
        { name: 'full_name', type: 'string', 'x-rename-from': 'name' },
        AGE,
        { name: 'level', type: 'integer', default: 1 },
      ]);
      const preview = await call('POST', `${J}jmoves/preview-changes/`, { new_schema: next });
      expect(preview.status).toBe(200);
      expect(preview.body.operations.map((o: { type: string; class: string }) => [o.type, o.class])).toEqual([
        ['rename_column', 'data-dependent'],
        ['drop_column', 'destructive'],
        ['add_column', 'data-dependent'],
      ]);
      expect(preview.body.is_safe).toBe(true);
      expect((await call('PATCH', `${J}jmoves/`, { json_schema: next })).status).toBe(200);
      expect(await records('jmoves')).toEqual([
        { id: 1, full_name: 'Ann', age: '41', level: 1 },
        { id: 2, full_name: 'Bob', age: 'old', level: 1 },
        { id: 3, age: '7', level: 1 },
      ]);
      const [op] = (await call('GET', `${J}jmoves/operation-history/?limit=1`)).body.results;
      expect(op).toMatchObject({ status: 'SUCCESS', operation_type: 'ALTER_TABLE' });
      expect(op.executed_sql).toContain(`jsonb_build_object(E'full_name'`);
      const back = await call('POST', `${J}jmoves/rollback/`, { revision_id: op.revision_id });
      expect(back.status).toBe(200);
      expect(back.body.message).toMatch(/restored with their data/);
      expect(await records('jmoves')).toEqual(ROWS);
      expect((await call('GET', `${J}jmoves/`)).body.json_schema).toEqual(DOCS);
    });

    it('changes a member type after a preflight over the stored values, and refuses a rollback the new values block', async () => {
      await makeDocs('jtypes');
      const typed = with_([ID, NAME, { name: 'age', type: 'integer' }, TAGS]);
      const preview = await call('POST', `${J}jtypes/preview-changes/`, { new_schema: typed });
      expect(preview.body.operations).toEqual([
        expect.objectContaining({
          type: 'alter_column_type',
          class: 'breaking',
          is_safe: false,
          preflight: { violating_rows: 1, sample_ids: [2], describes: 'values that do not convert to bigint', blocking: false },
        }),
      ]);
      const refused = await call('PATCH', `${J}jtypes/`, { json_schema: typed });
      expect(refused.status).toBe(400);
      expect(refused.body.warnings.join(' ')).toMatch(/values that do not convert to bigint .*for example 2/);
      expect((await call('PATCH', `${J}jtypes/`, { json_schema: typed, allow_data_loss: true })).status).toBe(200);
      expect((await records('jtypes')).map((r: { age: unknown }) => r.age)).toEqual([41, null, 7]);
      // Written on the new type, then the rollback to string converts every value back.
      expect((await call('POST', `${J}jtypes/data/`, { id: 4, age: 12 })).status).toBe(201);
      const [op] = (await call('GET', `${J}jtypes/operation-history/?limit=1`)).body.results;
      expect((await call('POST', `${J}jtypes/rollback/`, { revision_id: op.revision_id })).status).toBe(200);
      expect((await records('jtypes')).map((r: { age: unknown }) => r.age)).toEqual(['41', null, '7', '12']);
      // string → integer → string again, then a value that cannot go back blocks the rollback.
      expect(
        (
          await call('PATCH', `${J}jtypes/`, {
            json_schema: with_([ID, NAME, { name: 'age', type: 'number' }, TAGS]),
            allow_data_loss: true,
          })
        ).status,
      ).toBe(200);
      expect((await call('POST', `${J}jtypes/data/`, { id: 5, age: 1.5 })).status).toBe(201);
      const widened = with_([ID, NAME, { name: 'age', type: 'string' }, TAGS]);
      expect((await call('PATCH', `${J}jtypes/`, { json_schema: widened })).status).toBe(200);
      expect((await call('POST', `${J}jtypes/data/`, { id: 6, age: 'six' })).status).toBe(201);
      const [last] = (await call('GET', `${J}jtypes/operation-history/?limit=1`)).body.results;
      const blocked = await call('POST', `${J}jtypes/rollback/`, { revision_id: last.revision_id });
      expect(blocked.status).toBe(422);
      expect(JSON.stringify(blocked.body)).toMatch(/Incompatible data/);
    });

    it('preflights new required, length and unique constraints over the stored members, and builds unique and declared indexes', async () => {
      await makeDocs('jrules');
      const required = with_([ID, { name: 'name', type: 'string', constraints: { required: true } }, AGE, TAGS]);
      const noName = await call('PATCH', `${J}jrules/`, { json_schema: required });
      expect(noName.status).toBe(400);
      expect(noName.body.warnings.join(' ')).toMatch(/1 row: rows with no value for set_not_null on "name" \(for example 3\)/);
      const short = with_([ID, { name: 'name', type: 'string', constraints: { maxLength: 2 } }, AGE, TAGS]);
      const long = await call('POST', `${J}jrules/preview-changes/`, { new_schema: short });
      expect(long.body.operations[0]).toMatchObject({ type: 'add_check', preflight: { violating_rows: 2, sample_ids: [1, 2] } });
      expect((await call('POST', `${J}jrules/data/`, { id: 4, name: 'Ann' })).status).toBe(201);
      const unique = with_([ID, { name: 'name', type: 'string', constraints: { unique: true } }, AGE, TAGS]);
      const twice = await call('POST', `${J}jrules/preview-changes/`, { new_schema: unique });
      expect(twice.body.operations[0]).toMatchObject({ type: 'add_unique', preflight: { violating_rows: 2, sample_ids: [1, 4] } });
      expect((await call('DELETE', `${J}jrules/data/4/`)).status).toBe(204);
      const indexed = { ...unique, indexes: [{ name: 'by_age', fields: ['age'] }] };
      expect((await call('PATCH', `${J}jrules/`, { json_schema: indexed })).status).toBe(200);
      expect(await indexes('hr_jrules')).toEqual(['hr_jrules_by_age', 'hr_jrules_name_key', 'hr_jrules_pkey']);
      // The unique index holds: a second "Ann" is refused as the spec's record validation failure.
      expect((await call('POST', `${J}jrules/data/`, { id: 5, name: 'Ann' })).status).toBe(400);
      const [op] = (await call('GET', `${J}jrules/operation-history/?limit=1`)).body.results;
      expect(op.alembic_operations.map((o: { op: string; phase: string }) => [o.op, o.phase])).toEqual([
        ['add_unique', 'transaction'],
        ['create_index', 'concurrent'],
      ]);
    });
  });

  it('migrates while rows are being written: every write lands or is refused with a 4xx, none is lost', async () => {
    await makeTable('busy', PEOPLE, [{ id: 1, name: 'Ann' }]);
    const renamed = {
      ...PEOPLE,
      fields: [
        PEOPLE.fields[0],
        { name: 'full_name', type: 'string', 'x-rename-from': 'name' },
        PEOPLE.fields[2],
        { name: 'note', type: 'string' },
      ],
    };
    const writes = Array.from({ length: 24 }, (_, i) => i + 2);
    const [migration, ...written] = await Promise.all([
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return call('PATCH', `${T}busy/`, { json_schema: renamed });
      })(),
      ...writes.map(async (id) => {
        await new Promise((resolve) => setTimeout(resolve, id * 3));
        // Before the rename the record has "name", after it "full_name": each body fits one schema.
        const first = await call('POST', `${T}busy/data/`, { id, name: `n${id}` });
        if (first.status === 201) return { first: first.status, last: first };
        return { first: first.status, last: await call('POST', `${T}busy/data/`, { id, full_name: `n${id}` }) };
      }),
    ]);
    expect(migration.status).toBe(200);
    // A write planned on the old schema that reaches the table after the rename is refused with a 4xx
    // to send again (never a 500), or, validated against the new schema, as an unknown field.
    for (const answer of written) {
      expect([201, 400, 409]).toContain(answer.first);
      expect(answer.last.status, JSON.stringify(answer.last.body)).toBe(201);
    }
    const rows = (await call('GET', `${T}busy/data/?_sort=id&page_size=100`)).body.data;
    expect(rows.map((r: { id: number; full_name: string }) => [r.id, r.full_name])).toEqual([
      [1, 'Ann'],
      ...writes.map((id) => [id, `n${id}`]),
    ]);
  });

  it('retypes, renames and constrains a column in one change, the preflight reading the values as they will be', async () => {
    await makeTable('reshape', PEOPLE, [
      { id: 1, age: '41' },
      { id: 2, age: '-3' },
      { id: 3, age: 'x' },
    ]);
    const next = {
      ...PEOPLE,
      fields: [PEOPLE.fields[0], PEOPLE.fields[1], { name: 'years', type: 'integer', 'x-rename-from': 'age', constraints: { minimum: 0 } }],
    };
    const preview = await call('POST', `${T}reshape/preview-changes/`, { new_schema: next });
    expect(preview.status).toBe(200);
    const check = preview.body.operations.find((o: { type: string }) => o.type === 'add_check');
    expect(check.preflight).toMatchObject({ violating_rows: 1, sample_ids: [2] });
    expect((await call('DELETE', `${T}reshape/data/2/`)).status).toBe(204);
    expect((await call('PATCH', `${T}reshape/`, { json_schema: next, allow_data_loss: true })).status).toBe(200);
    expect((await call('GET', `${T}reshape/data/?_sort=id`)).body.data.map((r: { years: unknown }) => r.years)).toEqual([41, null]);
  });

  it('refuses a rename onto a name the table already has, and two fields renamed from one', async () => {
    await makeTable('clash', PEOPLE, [{ id: 1, name: 'Ann', age: '3' }]);
    const onto = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'age', type: 'string', 'x-rename-from': 'name' }] };
    const refused = await call('PATCH', `${T}clash/`, { json_schema: onto });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/already has a field \\"age\\"/);
    const split = {
      ...PEOPLE,
      fields: [
        ...PEOPLE.fields.filter((f) => f.name !== 'name'),
        { name: 'a', type: 'string', 'x-rename-from': 'name' },
        { name: 'b', type: 'string', 'x-rename-from': 'name' },
      ],
    };
    expect((await call('PATCH', `${T}clash/`, { json_schema: split })).status).toBe(400);
    expect((await call('POST', `${T}clash/validate-schema/`, { schema: split })).body).toMatchObject({
      valid: false,
      errors: [expect.stringMatching(/both renamed from "name"/)],
    });
    expect(await columns('hr_clash')).toEqual(['id:bigint:not null', 'name:text:null', 'age:text:null']);
    expect((await call('GET', `${T}clash/operation-history/`)).body.count).toBe(1);
  });

  it('is not reachable from another site: the table is not found there', async () => {
    const other = (await createSite(app, admin, 'Other Site')).slug;
    const answer = await app.request('GET', `${T}history/operation-history/`, { token: admin, headers: { 'x-tenant': other } });
    expect(answer.status).toBe(404);
  });
});
