// The schema-migration state machine (infra/state-machines/schema-migration.asl.json) in the local
// ASL interpreter with the real task functions: a clean run, a task that throws (FAILED, nothing
// changed), a failure after the change committed (reconciled to SUCCESS), validations after the
// commit (a failed one reverted; a failed revert left for the rollback), the INVALID index of a
// failed CONCURRENTLY build dropped, and the 202 answer of a PATCH that outlives its wait budget.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import validateAsl from 'asl-validator';
import { localMigrationDefinition, localMigrationHandlers } from '#functions/data/tables/migrations/migration-runner.ts';
import { recordMigration } from '#functions/data/tables/migrations/migration-service.ts';
import { findMigration } from '#functions/data/tables/migrations/operation-repository.ts';
import { findTable } from '#functions/data/tables/table-repository.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { runLocalStateMachine } from '#shared/workflows/local-state-machine.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const PEOPLE = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
  ],
  primaryKey: ['id'],
};
const WITH_EMAIL = { ...PEOPLE, fields: [...PEOPLE.fields, { name: 'email', type: 'string' }] };

describe('the schema-migration state machine', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let site: Tenant;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const T = '/api/apps/sm/datatables/';
  const columnsOf = async (table: string) =>
    (
      await app.runtime.db.rows<{ column_name: string }>(sql`select column_name from information_schema.columns
      where table_schema = ${site.schemaName} and table_name = ${table} order by ordinal_position`)
    ).map((c) => c.column_name);
  const handlers = () => localMigrationHandlers({ ...app.runtime.config.schemaMigrations, db: app.runtime.db, lockTimeoutMs: 2_000 });
  const tableRow = async (name: string) => {
    const [app_] = await app.runtime.db.rows<{ id: number }>(sql.raw(`select id from "${site.schemaName}".apps where slug = 'sm'`));
    return (await findTable(app.runtime.db, site, app_!.id, name))!;
  };
  const pending = async (name: string) => recordMigration(app.runtime.db, site, 1, await tableRow(name), WITH_EMAIL, false);
  const makeTable = async (name: string) => {
    expect((await call('POST', '/api/apps/sm/datasources/main/datatables/', { name, json_schema: PEOPLE })).status).toBe(201);
    expect((await call('POST', `${T}${name}/materialize/`)).status).toBe(200);
    expect((await call('POST', `${T}${name}/data/`, { id: 1, name: 'Ann' })).status).toBe(201);
  };

  beforeAll(async () => {
    // Every PATCH answers at once (202): the migration runs on in the background. Dropped columns are
    // swept at once (retention 0).
    app = await startTestApp({ SCHEMA_MIGRATION_WAIT_MS: '0', SCHEMA_TOMBSTONE_RETENTION_SECONDS: '0' });
    admin = await app.adminToken();
    const slug = (await createSite(app, admin, 'Machine Site')).slug;
    tenant = { 'x-tenant': slug };
    const [row] = await app.runtime.db.rows<{
      id: number;
      uuid: string;
      slug: string;
      name: string;
      schema_name: string;
      organization_id: number;
    }>(sql`select id, uuid, slug, name, schema_name, organization_id from platform.sites where slug = ${slug}`);
    site = {
      siteId: row!.id,
      uuid: row!.uuid,
      slug: row!.slug,
      name: row!.name,
      schemaName: row!.schema_name,
      organizationId: row!.organization_id,
      environment: 'production',
    };
    await call('POST', '/api/apps/', { name: 'SM' });
    await call('POST', '/api/apps/sm/datasources/', { name: 'Main', provider_type: 'flat_table' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('is a valid ASL document (asl-validator)', () => {
    // asl-validator mutates its input: give it a copy read from the file.
    const definition = JSON.parse(
      readFileSync(new URL('../../../infra/state-machines/schema-migration.asl.json', import.meta.url), 'utf8'),
    );
    const result = validateAsl(definition);
    expect(result.errorsText()).toBe('');
    expect(result.isValid).toBe(true);
    expect(Object.keys(definition.States)).toEqual([
      'Validate',
      'Lock',
      'Execute',
      'ValidateConstraints',
      'Record',
      'Invalidate',
      'Revert',
      'MarkFailed',
      'FailedOrReconciled',
      'Reconciled',
      'Failed',
    ]);
  });

  it('runs validate → lock → execute → record → invalidate to SUCCESS', async () => {
    await makeTable('clean');
    const revision = await pending('clean');
    expect((await findMigration(app.runtime.db, site, revision))!.status).toBe('PENDING');
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      { handlers: handlers() },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    const op = (await findMigration(app.runtime.db, site, revision))!;
    expect(op).toMatchObject({ status: 'SUCCESS', error_message: null });
    expect(op.started_at).not.toBeNull();
    expect(await columnsOf('sm_clean')).toEqual(['id', 'name', 'email']);
    expect((await call('GET', `${T}clean/`)).body.json_schema).toEqual(WITH_EMAIL);
  });

  it('marks the operation FAILED when a task throws, and changes nothing', async () => {
    await makeTable('throws');
    const before = await call('GET', `${T}throws/`);
    const revision = await pending('throws');
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      {
        handlers: {
          ...handlers(),
          Execute: async () => {
            throw new Error('the task Lambda crashed');
          },
        },
      },
    );
    expect(outcome.status).toBe('FAILED');
    expect((await findMigration(app.runtime.db, site, revision))!).toMatchObject({
      status: 'FAILED',
      error_message: 'the task Lambda crashed',
      error_code: 'Error',
    });
    expect(await columnsOf('sm_throws')).toEqual(['id', 'name']);
    const after = await call('GET', `${T}throws/`);
    expect(after.body.schema_hash).toBe(before.body.schema_hash);
    expect(after.body.json_schema).toEqual(PEOPLE);
  });

  it('retries the lock while another migration of the table runs, then refuses the stale plan', async () => {
    await makeTable('busy');
    const first = await pending('busy');
    const second = await pending('busy');
    const machine = localMigrationDefinition();
    const input = (revision: string) => ({ schema_name: site.schemaName, revision_id: revision });
    const [a, b] = await Promise.all([
      runLocalStateMachine(machine, input(first), { handlers: handlers(), retryIntervalMs: 20 }),
      runLocalStateMachine(machine, input(second), { handlers: handlers(), retryIntervalMs: 20 }),
    ]);
    expect([a.status, b.status].sort()).toEqual(['FAILED', 'SUCCEEDED']);
    const ops = [(await findMigration(app.runtime.db, site, first))!, (await findMigration(app.runtime.db, site, second))!];
    expect(ops.map((o) => o.status).sort()).toEqual(['FAILED', 'SUCCESS']);
    expect(ops.find((o) => o.status === 'FAILED')!.error_code).toBe('StaleSchemaError');
    expect(await columnsOf('sm_busy')).toEqual(['id', 'name', 'email']);
  });

  it('reconciles to SUCCESS when a step after the committed change fails', async () => {
    await makeTable('late');
    const revision = await pending('late');
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      {
        handlers: {
          ...handlers(),
          Record: async () => {
            throw new Error('recording failed');
          },
        },
        retryIntervalMs: 1,
      },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    expect((await findMigration(app.runtime.db, site, revision))!.status).toBe('SUCCESS');
    expect(await columnsOf('sm_late')).toEqual(['id', 'name', 'email']);
  });

  it('sweeps a dropped column once its retention has passed; a rollback then recreates it empty', async () => {
    await makeTable('swept');
    const table = await tableRow('swept');
    const revision = await recordMigration(app.runtime.db, site, 1, table, { ...PEOPLE, fields: [PEOPLE.fields[0]] }, false);
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      { handlers: handlers() },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    expect(await columnsOf('sm_swept')).toEqual(['id']);
    expect((await findMigration(app.runtime.db, site, revision))!.tombstones_swept_at).not.toBeNull();
    const back = await call('POST', `${T}swept/rollback/`, { revision_id: revision });
    expect(back.status).toBe(200);
    expect(back.body.message).toMatch(/recreated empty/);
    expect(await columnsOf('sm_swept')).toEqual(['id', 'name']);
    expect((await call('GET', `${T}swept/data/1/`)).body.data).toEqual({ id: 1, name: null });
  });

  const constraintsOf = async (table: string) =>
    (
      await app.runtime.db.rows<{ conname: string; convalidated: boolean }>(sql`select c.conname, c.convalidated from pg_constraint c
      join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${site.schemaName} and t.relname = ${table} and c.contype <> 'n' order by c.conname`)
    ).map((c) => `${c.conname}${c.convalidated ? '' : ' NOT VALID'}`);
  const indexesOf = async (table: string) =>
    (
      await app.runtime.db.rows<{ relname: string; indisvalid: boolean }>(sql`select c.relname, i.indisvalid from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${site.schemaName} and t.relname = ${table} order by c.relname`)
    ).map((i) => `${i.relname}${i.indisvalid ? '' : ' INVALID'}`);
  const SHORT_NAMES = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'name', type: 'string', constraints: { maxLength: 3 } }] };
  /** A migration recorded after a clean preflight; then a row the preflight never saw breaks it. */
  const racedByAWrite = async (name: string, next: unknown, row: Record<string, unknown>) => {
    await makeTable(name);
    const revision = await recordMigration(app.runtime.db, site, 1, await tableRow(name), next, false);
    expect((await call('POST', `${T}${name}/data/`, row)).status).toBe(201);
    return revision;
  };

  it('validates a new CHECK after the commit; a row that breaks it reverts the change: FAILED, table as before', async () => {
    const revision = await racedByAWrite('raced', SHORT_NAMES, { id: 2, name: 'Bobby' });
    const before = await call('GET', `${T}raced/`);
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      { handlers: handlers() },
    );
    expect(outcome.status).toBe('FAILED');
    const op = (await findMigration(app.runtime.db, site, revision))!;
    expect(op).toMatchObject({ status: 'FAILED', error_code: 'ConstraintValidationError', applied_at: null });
    expect(op.error_message).toMatch(/Validation of step 1 \(add_check name\) failed after the change was applied/);
    expect(await constraintsOf('sm_raced')).toEqual(['sm_raced_pkey']);
    const after = await call('GET', `${T}raced/`);
    expect(after.body.schema_hash).toBe(before.body.schema_hash);
    expect(after.body.json_schema).toEqual(PEOPLE);
    expect((await call('GET', `${T}raced/data/2/`)).body.data).toEqual({ id: 2, name: 'Bobby' });
  });

  it('leaves a change whose validation and revert both fail FAILED with its NOT VALID constraint named; the rollback undoes it', async () => {
    const revision = await racedByAWrite('stuck', SHORT_NAMES, { id: 2, name: 'Bobby' });
    const before = await call('GET', `${T}stuck/`);
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      {
        handlers: {
          ...handlers(),
          Revert: async () => {
            throw new Error('the revert crashed');
          },
        },
      },
    );
    expect(outcome.status).toBe('FAILED');
    const op = (await findMigration(app.runtime.db, site, revision))!;
    expect(op.status).toBe('FAILED');
    expect(op.error_message).toMatch(/sm_stuck_name_max_length is not validated .* Roll back revision/);
    expect(await constraintsOf('sm_stuck')).toEqual(['sm_stuck_name_max_length NOT VALID', 'sm_stuck_pkey']);
    // New writes are checked meanwhile.
    expect((await call('POST', `${T}stuck/data/`, { id: 3, name: 'Carla' })).status).toBe(400);
    const back = await call('POST', `${T}stuck/rollback/`, { revision_id: revision });
    expect(back.status).toBe(200);
    expect(await constraintsOf('sm_stuck')).toEqual(['sm_stuck_pkey']);
    expect((await call('GET', `${T}stuck/`)).body.schema_hash).toBe(before.body.schema_hash);
    expect((await call('POST', `${T}stuck/rollback/`, { revision_id: revision })).status).toBe(409);
  });

  it('sets NOT NULL after the commit through a validated CHECK that then goes', async () => {
    await makeTable('required');
    const required = { ...PEOPLE, fields: [PEOPLE.fields[0], { name: 'name', type: 'string', constraints: { required: true } }] };
    const revision = await recordMigration(app.runtime.db, site, 1, await tableRow('required'), required, false);
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      { handlers: handlers() },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    expect(await constraintsOf('sm_required')).toEqual(['sm_required_pkey']);
    const [column] = await app.runtime.db.rows<{ is_nullable: string }>(sql`select is_nullable from information_schema.columns
      where table_schema = ${site.schemaName} and table_name = 'sm_required' and column_name = 'name'`);
    expect(column!.is_nullable).toBe('NO');
  });

  it('drops the INVALID index a failed CONCURRENTLY build leaves, and records the migration FAILED', async () => {
    const unique = { ...PEOPLE, indexes: [{ name: 'by_name', fields: ['name'], unique: true }] };
    const revision = await racedByAWrite('invalid', unique, { id: 2, name: 'Ann' });
    expect((await findMigration(app.runtime.db, site, revision))!.steps).toEqual([
      expect.objectContaining({ type: 'create_index', phase: 'concurrent' }),
    ]);
    const outcome = await runLocalStateMachine(
      localMigrationDefinition(),
      { schema_name: site.schemaName, revision_id: revision },
      { handlers: handlers() },
    );
    expect(outcome.status).toBe('FAILED');
    const op = (await findMigration(app.runtime.db, site, revision))!;
    expect(op).toMatchObject({ status: 'FAILED', error_code: 'MigrationStepError' });
    expect(op.error_message).toMatch(/step 1 \(create_index name\)/);
    expect(await indexesOf('sm_invalid')).toEqual(['sm_invalid_pkey']);
  });

  it('answers 202 with the operation while the migration runs past the budget; polling shows it finish', async () => {
    await makeTable('slow');
    const answer = await call('PATCH', `${T}slow/`, { json_schema: WITH_EMAIL });
    expect(answer.status).toBe(202);
    expect(answer.body.operation).toMatchObject({ operation_type: 'ALTER_TABLE' });
    expect(['PENDING', 'IN_PROGRESS', 'SUCCESS']).toContain(answer.body.operation.status);
    let status = answer.body.operation.status;
    for (let attempt = 0; attempt < 200 && status !== 'SUCCESS' && status !== 'FAILED'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await call('GET', `${T}slow/operation-history/${answer.body.operation.revision_id}/`)).body.status;
    }
    expect(status).toBe('SUCCESS');
    expect((await call('GET', `${T}slow/`)).body.json_schema).toEqual(WITH_EMAIL);
  });
});
