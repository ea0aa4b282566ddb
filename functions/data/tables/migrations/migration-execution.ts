// How a recorded migration changes the database: its CONCURRENTLY index builds (each on a connection
// of its own with lock and statement timeouts; a failed build's INVALID index dropped), its one
// transaction under the datatable's row lock, the validations that run after that transaction
// (VALIDATE CONSTRAINT holds only SHARE UPDATE EXCLUSIVE), and the revert of an applied migration
// whose validation failed. The state machine's tasks (migration-tasks.ts) call these.
import { sql } from '#shared/db/sql.ts';
import { LockTimeoutError, StatementTimeoutError } from '#shared/db/database-errors.ts';
import type { Database, Queryable } from '#shared/db/database.ts';
import { identifier as ident, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { ddlText } from '../ddl.ts';
import { executionOrder, type PlannedStep } from './migration-steps.ts';
import { currentHash, indexOnTable, invalidIndexesOfFailedMigrations, unvalidatedConstraints } from './catalog-repository.ts';
import { markApplied, markUnapplied, setTableSchema, type MigrationRow } from './operation-repository.ts';

/** The timeouts every migration statement runs under. */
export interface StatementLimits {
  lockTimeoutMs: number;
  /** statement_timeout of each DDL statement (the spec: 30 s). */
  ddlTimeoutMs: number;
}

/** The table's schema changed after the plan was made; the caller must plan again (409). */
export class StaleSchemaError extends Error {
  constructor() {
    super("The table's schema changed after this migration was planned (its base schema_hash is stale).");
    this.name = 'StaleSchemaError';
  }
}

/** A step's statement failed; names the step so the operation's error_message says which. */
class MigrationStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationStepError';
  }
}

/** Rows written between the preflight and the migration break a constraint it added NOT VALID. */
class ConstraintValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConstraintValidationError';
  }
}

/** DDL (no parameters) that drops an index of the tenant schema without blocking the table's writers. */
function dropIndexConcurrently(site: Site, index: string) {
  return sql.raw(ddlText(sql`drop index concurrently if exists ${ident(site.schemaName)}.${ident(index)}`));
}

export function causeMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause ?? error.message;
}

function stepLabel(op: MigrationRow, step: PlannedStep): string {
  return `step ${op.steps.indexOf(step) + 1} (${step.type}${step.column ? ` ${step.column}` : ''})`;
}

/** Timeouts keep their names (the state machine retries lock timeouts); other errors name their step. */
function stepFailure(error: unknown, message: string): Error {
  if (error instanceof StatementTimeoutError || error instanceof LockTimeoutError) return error;
  return new MigrationStepError(`${message}: ${causeMessage(error)}`);
}

/**
 * Drops the indexes the migration's CONCURRENTLY steps built on its table, valid or INVALID (a build
 * that fails or times out leaves its index behind INVALID). The planner gives these steps only names
 * no other index of the table has or needs, so whatever index of that name is on the table is theirs.
 */
export async function dropConcurrentIndexes(db: Database, site: Site, op: MigrationRow, limits: StatementLimits): Promise<void> {
  for (const step of op.steps.filter((s) => s.phase === 'concurrent' && s.object !== undefined)) {
    if (!(await indexOnTable(db, site, op.table_name, step.object!))) continue;
    await db.runOutsideTransaction(dropIndexConcurrently(site, step.object!), {
      statementTimeoutMs: limits.ddlTimeoutMs,
      lockTimeoutMs: limits.lockTimeoutMs,
    });
  }
}

async function buildConcurrentIndexes(db: Database, site: Site, op: MigrationRow, limits: StatementLimits): Promise<void> {
  // What an earlier attempt of this migration left (a crashed task): built again from scratch.
  await dropConcurrentIndexes(db, site, op, limits);
  for (const step of op.steps.filter((s) => s.phase === 'concurrent')) {
    for (const text of step.sql) {
      try {
        await db.runOutsideTransaction(sql.raw(text), { statementTimeoutMs: limits.ddlTimeoutMs, lockTimeoutMs: limits.lockTimeoutMs });
      } catch (error) {
        throw stepFailure(error, `The migration failed at ${stepLabel(op, step)}`);
      }
    }
  }
}

/**
 * CONCURRENTLY steps, then one transaction: the datatable's row lock (which serialises every change
 * of the table's schema and refuses a stale plan), every transaction step, the new schema and hash.
 * On any failure the indexes built CONCURRENTLY are dropped, so nothing of the migration remains.
 */
export async function executeMigration(db: Database, site: Site, op: MigrationRow, limits: StatementLimits): Promise<void> {
  try {
    await buildConcurrentIndexes(db, site, op, limits);
    await db.transaction(
      async (tx) => {
        if ((await currentHash(tx, site, op.datatable_id!, true)) !== op.base_schema_hash) throw new StaleSchemaError();
        for (const step of op.steps.filter((s) => s.phase === 'transaction')) {
          for (const text of step.sql) {
            try {
              await tx.run(sql.raw(text));
            } catch (error) {
              throw stepFailure(error, `The migration failed at ${stepLabel(op, step)}`);
            }
          }
        }
        await setTableSchema(tx, site, op.datatable_id!, op.target_schema, op.target_schema_hash!, op.created_by);
        await markApplied(tx, site, op.revision_id);
      },
      { statementTimeoutMs: limits.ddlTimeoutMs, lockTimeoutMs: limits.lockTimeoutMs },
    );
  } catch (error) {
    // Best effort: a drop that cannot get its lock now is done by markFailed or the sweep.
    await dropConcurrentIndexes(db, site, op, limits).catch(() => undefined);
    throw error;
  }
}

/**
 * The INVALID indexes failed migrations of the schema (or of one table) left because their drop
 * could not get its lock at the time: dropped now. Failures stay for the next sweep.
 */
export async function sweepInvalidIndexes(db: Database, site: Site, limits: StatementLimits, tableId?: number): Promise<number> {
  let dropped = 0;
  for (const index_name of await invalidIndexesOfFailedMigrations(db, site, tableId)) {
    try {
      await db.runOutsideTransaction(dropIndexConcurrently(site, index_name), {
        statementTimeoutMs: limits.ddlTimeoutMs,
        lockTimeoutMs: limits.lockTimeoutMs,
      });
      dropped += 1;
    } catch {
      // still locked: the next sweep tries again
    }
  }
  return dropped;
}

/**
 * After the commit: each validation statement in a short transaction of its own (VALIDATE takes
 * SHARE UPDATE EXCLUSIVE, so reads and writes go on while it scans). Every statement may run again
 * on a retry: validating a valid constraint, setting NOT NULL twice and `drop constraint if exists`
 * change nothing the second time.
 */
export async function validateConstraints(db: Queryable, op: MigrationRow, limits: StatementLimits): Promise<number> {
  let ran = 0;
  for (const step of executionOrder(op.steps)) {
    for (const text of step.validate_sql ?? []) {
      try {
        await db.transaction((tx) => tx.run(sql.raw(text)), {
          statementTimeoutMs: limits.ddlTimeoutMs,
          lockTimeoutMs: limits.lockTimeoutMs,
        });
      } catch (error) {
        if (error instanceof LockTimeoutError) throw error;
        const failure = `Validation of ${stepLabel(op, step)} failed after the change was applied: ${causeMessage(error)}`;
        throw error instanceof StatementTimeoutError ? error : new ConstraintValidationError(failure);
      }
      ran += 1;
    }
  }
  return ran;
}

/**
 * The constraints of the migration that are not validated yet: NOT VALID checks and foreign keys it
 * added, and the transient CHECK of a NOT NULL still standing. Read from the catalog, so it tells
 * whatever a crashed or failed task left.
 */
export async function pendingValidations(db: Queryable, site: Site, op: MigrationRow): Promise<string[]> {
  const names = op.steps.filter((s) => s.validate_sql !== undefined && s.object !== undefined).map((s) => s.object!);
  if (names.length === 0) return [];
  const transient = op.steps.filter((s) => s.type === 'set_not_null').map((s) => s.object ?? '');
  return unvalidatedConstraints(db, site, op.table_name, names, transient);
}

/**
 * Reverses a migration in one transaction under the datatable's row lock: every step's rollback
 * statements in reverse order (a swept tombstone comes back empty), the previous schema and hash.
 * Used by the rollback endpoint and by the revert of a migration whose validation failed.
 */
export async function reverseMigration(tx: Queryable, site: Site, op: MigrationRow, userId: number | null): Promise<void> {
  const swept = op.tombstones_swept_at !== null;
  for (const step of executionOrder(op.steps).reverse()) {
    for (const text of swept && step.tombstone ? step.tombstone.rollback_after_sweep : step.rollback_sql) await tx.run(sql.raw(text));
  }
  await setTableSchema(tx, site, op.datatable_id!, op.previous_schema, op.base_schema_hash!, userId);
}

/**
 * A migration applied but not validated (rows written between its preflight and its transaction
 * break a constraint it added): undone whole, so the operation ends FAILED with the table exactly as
 * before, NOT VALID constraints gone. Refused when the table's schema is no longer the migration's.
 */
export async function revertAppliedMigration(db: Queryable, site: Site, op: MigrationRow, limits: StatementLimits): Promise<void> {
  await db.transaction(
    async (tx) => {
      if ((await currentHash(tx, site, op.datatable_id!, true)) !== op.target_schema_hash) throw new StaleSchemaError();
      await reverseMigration(tx, site, op, op.created_by);
      await markUnapplied(tx, site, op.revision_id);
    },
    { statementTimeoutMs: limits.ddlTimeoutMs, lockTimeoutMs: limits.lockTimeoutMs },
  );
}
