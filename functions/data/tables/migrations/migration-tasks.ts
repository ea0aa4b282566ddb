// The task functions of the schema-migration state machine (infra/state-machines/schema-migration.asl.json):
// validate → lock → execute → record → invalidate, and markFailed on any error. The deployed task
// Lambda and the local runner call these same functions; each takes the tenant schema and the
// operation's revision id, so everything else is read from the operation row.
import { sql } from '#shared/db/sql.ts';
import { LockTimeoutError, StatementTimeoutError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { isSafeIdentifier } from '../table-schema.ts';
import { tenantTable } from '#shared/tenancy/tenant-sql.ts';
import { forgetTableDescriptors } from '../table-service.ts';
import { ddlText, ident } from '../ddl.ts';
import { siteSchemas, sweepTombstones } from './tombstone-sweep.ts';
import {
  claimMigration,
  completeMigration,
  failMigration,
  findMigration,
  markApplied,
  setTableSchema,
  type MigrationRow,
} from './operation-repository.ts';

export interface MigrationTaskInput {
  task: 'validate' | 'lock' | 'execute' | 'record' | 'invalidate' | 'markFailed' | 'sweepAll';
  schema_name: string;
  revision_id: string;
  /** On markFailed: what the Catch caught. */
  error?: { Error?: string; Cause?: string };
}

/** The database and the settings of the task functions (lock and DDL timeouts, tombstone retention). */
export interface MigrationTaskDeps {
  db: Queryable;
  lockTimeoutMs: number;
  /** statement_timeout of each DDL statement (the spec: 30 s). */
  ddlTimeoutMs: number;
  /** How long dropped columns stay hidden before a sweep removes them. */
  tombstoneRetentionMs: number;
}

/** The table's schema changed after the plan was made; the caller must plan again (409). */
export class StaleSchemaError extends Error {
  constructor() {
    super("The table's schema changed after this migration was planned (its base schema_hash is stale).");
    this.name = 'StaleSchemaError';
  }
}

/** A step's statement failed; names the step so the operation's error_message says which. */
export class MigrationStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationStepError';
  }
}

class OperationStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationStateError';
  }
}

function causeMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause ?? error.message;
}

async function operation(db: Queryable, site: { schemaName: string }, revisionId: string): Promise<MigrationRow> {
  const row = await findMigration(db, site, revisionId);
  if (row === undefined || row.datatable_id === null) throw new OperationStateError(`Schema operation ${revisionId} does not exist.`);
  return row;
}

async function currentHash(db: Queryable, site: { schemaName: string }, tableId: number, forUpdate = false): Promise<string | undefined> {
  const lock = forUpdate ? sql` for update` : sql``;
  const [row] = await db.rows<{ schema_hash: string }>(
    sql`select schema_hash from ${tenantTable(site, 'datatables')} where id = ${tableId}${lock}`,
  );
  return row?.schema_hash;
}

/** CONCURRENTLY steps run outside the transaction; a failed or abandoned migration drops what they built. */
async function dropConcurrentIndexes(db: Queryable, site: { schemaName: string }, op: MigrationRow): Promise<void> {
  for (const step of op.steps.filter((s) => s.phase === 'concurrent' && s.object !== undefined)) {
    await db.run(sql.raw(ddlText(sql`drop index concurrently if exists ${ident(site.schemaName)}.${ident(step.object!)}`)));
  }
}

async function execute(deps: MigrationTaskDeps, site: { schemaName: string }, op: MigrationRow): Promise<void> {
  const { db } = deps;
  const statementOf = (index: number) => {
    const step = op.steps[index]!;
    return `step ${index + 1} (${step.type}${step.column ? ` ${step.column}` : ''})`;
  };
  const numbered = op.steps.map((step, index) => ({ step, index }));
  try {
    for (const { step, index } of numbered.filter((s) => s.step.phase === 'concurrent')) {
      for (const text of step.sql) {
        try {
          await db.run(sql.raw(text));
        } catch (error) {
          throw new MigrationStepError(`The migration failed at ${statementOf(index)}: ${causeMessage(error)}`);
        }
      }
    }
    await db.transaction(
      async (tx) => {
        // The row lock serialises every change of this table's schema; the base check refuses a stale plan.
        if ((await currentHash(tx, site, op.datatable_id!, true)) !== op.base_schema_hash) throw new StaleSchemaError();
        for (const { step, index } of numbered.filter((s) => s.step.phase === 'transaction')) {
          for (const text of step.sql) {
            try {
              await tx.run(sql.raw(text));
            } catch (error) {
              if (error instanceof StatementTimeoutError || error instanceof LockTimeoutError) throw error;
              throw new MigrationStepError(`The migration failed at ${statementOf(index)}: ${causeMessage(error)}`);
            }
          }
        }
        // A schema saved by a migration passed XML Schema's dialect (planChange compiles it strictly).
        await setTableSchema(
          tx,
          site,
          op.datatable_id!,
          { schema: op.target_schema, hash: op.target_schema_hash!, patternDialect: 'xsd' },
          op.created_by,
        );
        await markApplied(tx, site, op.revision_id);
      },
      { statementTimeoutMs: deps.ddlTimeoutMs, lockTimeoutMs: deps.lockTimeoutMs },
    );
  } catch (error) {
    await dropConcurrentIndexes(db, site, op);
    throw error;
  }
}

/** Runs one task of the state machine; errors keep their names, which the ASL's Retry and Catch match. */
export async function runMigrationTask(deps: MigrationTaskDeps, input: MigrationTaskInput): Promise<Record<string, unknown>> {
  if (input.task === 'sweepAll') return sweepAllSites(deps);
  if (!isSafeIdentifier(input.schema_name) || typeof input.revision_id !== 'string') throw new OperationStateError('Bad task input.');
  const site = { schemaName: input.schema_name };
  const { db } = deps;
  switch (input.task) {
    case 'validate': {
      const op = await operation(db, site, input.revision_id);
      if (op.status !== 'PENDING') throw new OperationStateError(`Schema operation ${op.revision_id} is ${op.status}, not PENDING.`);
      if ((await currentHash(db, site, op.datatable_id!)) !== op.base_schema_hash) throw new StaleSchemaError();
      return { status: op.status };
    }
    case 'lock': {
      if (!(await claimMigration(db, site, input.revision_id)))
        throw new OperationStateError(`Schema operation ${input.revision_id} is no longer PENDING.`);
      return { status: 'IN_PROGRESS' };
    }
    case 'execute': {
      const op = await operation(db, site, input.revision_id);
      if (op.status !== 'IN_PROGRESS')
        throw new OperationStateError(`Schema operation ${op.revision_id} is ${op.status}, not IN_PROGRESS.`);
      await execute(deps, site, op);
      return { status: 'IN_PROGRESS' };
    }
    case 'record': {
      await completeMigration(db, site, input.revision_id);
      return { status: 'SUCCESS' };
    }
    case 'invalidate': {
      const op = await operation(db, site, input.revision_id);
      forgetTableDescriptors(site.schemaName, op.table_name);
      // The table's own dropped columns whose retention has passed go now; the schedule sweeps the rest.
      const swept = await sweepTombstones(db, site, deps, op.datatable_id!);
      return { status: op.status, swept_columns: swept.columns };
    }
    case 'markFailed': {
      const op = await operation(db, site, input.revision_id);
      // The change may have committed before a later step failed: then it succeeded.
      if (op.status === 'SUCCESS' || (op.status === 'IN_PROGRESS' && op.applied_at !== null)) {
        await completeMigration(db, site, op.revision_id);
        forgetTableDescriptors(site.schemaName, op.table_name);
        return { status: 'SUCCESS' };
      }
      await dropConcurrentIndexes(db, site, op);
      const { code, message } = readCaught(input.error);
      await failMigration(db, site, op.revision_id, code, message);
      return { status: 'FAILED' };
    }
  }
}

/** The scheduled sweep: every site's expired tombstones; one site's failure does not stop the others. */
async function sweepAllSites(deps: MigrationTaskDeps): Promise<Record<string, unknown>> {
  let columns = 0;
  const failed: unknown[] = [];
  for (const schemaName of await siteSchemas(deps.db)) {
    try {
      const result = await sweepTombstones(deps.db, { schemaName }, deps);
      columns += result.columns;
      failed.push(...result.failed.map((f) => ({ schema: schemaName, ...f })));
    } catch (error) {
      failed.push({ schema: schemaName, error: causeMessage(error) });
    }
  }
  return { swept_columns: columns, failed };
}

/** Step Functions wraps a Lambda's error as `{errorMessage, errorType}` JSON in `Cause`; the local runner does not. */
function readCaught(error: MigrationTaskInput['error']): { code: string; message: string } {
  const code = error?.Error ?? 'MigrationFailed';
  const cause = error?.Cause ?? 'The migration failed.';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return { code, message: parsed.errorMessage };
  } catch {
    // a plain message
  }
  return { code, message: cause };
}
