// The task functions of the schema-migration state machine (infra/state-machines/schema-migration.asl.json):
// validate → lock → execute → validateConstraints → record → invalidate; revert when a validation
// fails after the commit; markFailed on any error. The deployed task Lambda and the local runner call
// these same functions; each takes the tenant schema and the operation's revision id, so everything
// else is read from the operation row.
import type { Database } from '#shared/db/database.ts';
import { isSafeIdentifier } from '#shared/db/sql-identifiers.ts';
import { forgetTableDescriptors } from '../table-lookup.ts';
import { siteSchemas, sweepTombstones } from './tombstone-sweep.ts';
import { currentHash } from './catalog-repository.ts';
import {
  causeMessage,
  dropConcurrentIndexes,
  executeMigration,
  pendingValidations,
  revertAppliedMigration,
  StaleSchemaError,
  sweepInvalidIndexes,
  validateConstraints,
} from './migration-execution.ts';
import { claimMigration, completeMigration, failMigration, findMigration, type MigrationRow } from './operation-repository.ts';

export interface MigrationTaskInput {
  task: 'validate' | 'lock' | 'execute' | 'validateConstraints' | 'revert' | 'record' | 'invalidate' | 'markFailed' | 'sweepAll';
  schema_name: string;
  revision_id: string;
  /** On markFailed: what the Catch caught. */
  error?: { Error?: string; Cause?: string };
}

/** The database and the settings of the task functions (lock and DDL timeouts, tombstone retention). */
export interface MigrationTaskDeps {
  db: Database;
  lockTimeoutMs: number;
  /** statement_timeout of each DDL statement (the spec: 30 s). */
  ddlTimeoutMs: number;
  /** How long dropped columns stay hidden before a sweep removes them. */
  tombstoneRetentionMs: number;
}

class OperationStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationStateError';
  }
}

async function operation(db: Database, site: { schemaName: string }, revisionId: string): Promise<MigrationRow> {
  const row = await findMigration(db, site, revisionId);
  if (row === undefined || row.datatable_id === null) throw new OperationStateError(`Schema operation ${revisionId} does not exist.`);
  return row;
}

async function inProgress(db: Database, site: { schemaName: string }, revisionId: string): Promise<MigrationRow> {
  const op = await operation(db, site, revisionId);
  if (op.status !== 'IN_PROGRESS') throw new OperationStateError(`Schema operation ${op.revision_id} is ${op.status}, not IN_PROGRESS.`);
  return op;
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
      const op = await inProgress(db, site, input.revision_id);
      // Step Functions may run a task twice: an applied migration is not applied again.
      if (op.applied_at === null) await executeMigration(db, site, op, deps);
      return { status: 'IN_PROGRESS' };
    }
    case 'validateConstraints': {
      const op = await inProgress(db, site, input.revision_id);
      return { status: 'IN_PROGRESS', validated: await validateConstraints(db, op, deps) };
    }
    case 'revert': {
      const op = await inProgress(db, site, input.revision_id);
      if (op.applied_at !== null) {
        await revertAppliedMigration(db, site, op, deps);
        forgetTableDescriptors(site.schemaName, op.table_name);
      }
      await dropConcurrentIndexes(db, site, op, deps);
      return { status: 'REVERTED' };
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
      await sweepInvalidIndexes(db, site, deps, op.datatable_id!);
      return { status: op.status, swept_columns: swept.columns };
    }
    case 'markFailed':
      return markFailed(deps, site, input);
  }
}

/**
 * The end of a failed execution. Nothing applied: FAILED, concurrently built indexes dropped. Applied
 * and validated (a later task failed): the change stands, SUCCESS. Applied with constraints still
 * NOT VALID (the revert itself failed): FAILED, the table left on the new schema, and the message
 * says that a rollback of the revision undoes it.
 */
async function markFailed(
  deps: MigrationTaskDeps,
  site: { schemaName: string },
  input: MigrationTaskInput,
): Promise<Record<string, unknown>> {
  const { db } = deps;
  const op = await operation(db, site, input.revision_id);
  const { code, message } = readCaught(input.error);
  if (op.status === 'SUCCESS' || (op.status === 'IN_PROGRESS' && op.applied_at !== null)) {
    const pending = await pendingValidations(db, site, op);
    if (pending.length === 0) {
      await completeMigration(db, site, op.revision_id);
      forgetTableDescriptors(site.schemaName, op.table_name);
      return { status: 'SUCCESS' };
    }
    const unvalidated =
      `${message} The change is applied but not validated: ${pending.join(', ')} ${pending.length === 1 ? 'is' : 'are'} not validated ` +
      `(new writes are checked, existing rows are not). Roll back revision ${op.revision_id} to undo it.`;
    await failMigration(db, site, op.revision_id, code, unvalidated);
    forgetTableDescriptors(site.schemaName, op.table_name);
    return { status: 'FAILED' };
  }
  // The FAILED status must be recorded whatever the cleanup meets (an old transaction that keeps a
  // DROP INDEX CONCURRENTLY waiting past its lock timeout): what stays is dropped by the sweep.
  let leftover = '';
  try {
    await dropConcurrentIndexes(db, site, op, deps);
  } catch (error) {
    leftover = ` An index its CONCURRENTLY step built could not be dropped yet (${causeMessage(error)}); the sweep drops it.`;
  }
  await failMigration(db, site, op.revision_id, code, `${message}${leftover}`);
  return { status: 'FAILED' };
}

/** The scheduled sweep: every site's expired tombstones and leftover INVALID indexes; one site's failure does not stop the others. */
async function sweepAllSites(deps: MigrationTaskDeps): Promise<Record<string, unknown>> {
  let columns = 0;
  let indexes = 0;
  const failed: unknown[] = [];
  for (const schemaName of await siteSchemas(deps.db)) {
    try {
      const result = await sweepTombstones(deps.db, { schemaName }, deps);
      indexes += await sweepInvalidIndexes(deps.db, { schemaName }, deps);
      columns += result.columns;
      failed.push(...result.failed.map((f) => ({ schema: schemaName, ...f })));
    } catch (error) {
      failed.push({ schema: schemaName, error: causeMessage(error) });
    }
  }
  return { swept_columns: columns, swept_invalid_indexes: indexes, failed };
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
