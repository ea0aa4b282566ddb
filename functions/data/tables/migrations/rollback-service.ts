// Rollback of a table's newest successful migration: its recorded rollback statements in one
// transaction under the table's row lock, the previous schema and hash restored, the operation
// ROLLED_BACK. Refused for an unknown revision, twice, out of order, and when rows would not
// convert back to a narrower type, and when rows break a pattern or format the previous schema restores.
import type { Principal } from '#shared/auth/principal.ts';
import { LockTimeoutError, StatementTimeoutError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { AppError, BusinessLogicError, ConflictError, NotFoundError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { assertManagesData } from '../../apps/data-access.ts';
import type { DatatableRow } from '../table-repository.ts';
import { analyzeTableSchema, compileTable } from '../table-schema.ts';
import { compileTarget, forgetTableDescriptors, storedTarget } from '../table-lookup.ts';
import { tablesOfApp } from '../table-repository.ts';
import { currentHash } from './catalog-repository.ts';
import { reverseMigration } from './migration-execution.ts';
import { findMigration, latestAppliedMigration, markRolledBack } from './operation-repository.ts';
import { mapFields } from './field-mapping.ts';
import { countViolations } from './preflight.ts';
import { runValueChecks } from './value-preflight.ts';

export async function rollbackMigration(
  db: Queryable,
  settings: { lockTimeoutMs: number; ddlTimeoutMs: number },
  site: Tenant,
  caller: Principal,
  table: DatatableRow,
  revisionId: string,
) {
  await assertManagesData(db, site, caller);
  const op = await findMigration(db, site, revisionId);
  if (op === undefined || op.datatable_id !== table.id) throw new NotFoundError(`No schema operation "${revisionId}" on this table.`);
  if (op.status === 'ROLLED_BACK')
    throw new ConflictError(`Schema operation ${revisionId} was already rolled back; an operation cannot be rolled back twice.`);
  if (op.operation_type !== 'ALTER_TABLE') throw new BusinessLogicError('A CREATE_TABLE operation is undone by deleting the table.');
  // A FAILED migration that stayed applied (its validation and its revert failed) is undone here too.
  const applied = op.status === 'SUCCESS' || (op.status === 'FAILED' && op.applied_at !== null);
  if (!applied) throw new ConflictError(`Schema operation ${revisionId} is ${op.status}; only an applied migration can be rolled back.`);
  const latest = await latestAppliedMigration(db, site, table.id);
  if (latest !== revisionId) throw new ConflictError(`A later migration (${latest}) changed this table; roll it back first.`);

  // Incompatible data blocks a type rollback: count the values that would not convert back.
  const target = compileTarget(site, table, await tablesOfApp(db, site, table.app_id));
  const current = compileTable(table.json_schema, { ...target, ...storedTarget(table) }).descriptor;
  const blockers: string[] = [];
  // Patterns and formats have no CHECK: the rows written since must pass the ones the rollback restores.
  // (A previous schema that no longer compiles, say its foreign key's table is gone, has nothing to check here.)
  const analyzed = analyzeTableSchema(op.previous_schema, { ...target, storedSchema: true, patternDialect: op.previous_pattern_dialect });
  if ('compiled' in analyzed) {
    const previous = analyzed.compiled.descriptor;
    for (const { column, result } of await runValueChecks(db, current, previous, mapFields(current, previous, op.previous_schema).origin)) {
      if (result.violating_rows > 0) {
        blockers.push(
          `${result.violating_rows} rows of "${column}" hold ${result.describes} (for example ${result.sample_ids.map((id) => JSON.stringify(id)).join(', ')}).`,
        );
      }
    }
  }
  for (const step of op.steps) {
    if (step.rollback_preflight === undefined) continue;
    const found = await countViolations(db, current, step.rollback_preflight);
    if (found.violating_rows > 0) {
      blockers.push(
        `${found.violating_rows} rows of "${step.column}" hold ${found.describes} (for example ${found.sample_ids.map((id) => JSON.stringify(id)).join(', ')}).`,
      );
    }
  }
  if (blockers.length > 0)
    throw new BusinessLogicError(`Incompatible data blocks the rollback: ${blockers.join(' ')}`, { extras: { warnings: blockers } });

  try {
    await db.transaction(
      async (tx) => {
        if ((await currentHash(tx, site, table.id, true)) !== op.target_schema_hash)
          throw new ConflictError("The table's schema changed after this migration; it cannot be rolled back.");
        // Under the row lock: a concurrent rollback of the same revision finds it rolled back here.
        const locked = await findMigration(tx, site, revisionId, { forUpdate: true });
        if (locked?.status === 'ROLLED_BACK')
          throw new ConflictError(`Schema operation ${revisionId} was already rolled back; an operation cannot be rolled back twice.`);
        // A dropped column whose tombstone was swept comes back empty from its stored definition.
        await reverseMigration(tx, site, { ...op, tombstones_swept_at: locked?.tombstones_swept_at ?? op.tombstones_swept_at }, caller.id);
        await markRolledBack(tx, site, revisionId);
      },
      { statementTimeoutMs: settings.ddlTimeoutMs, lockTimeoutMs: settings.lockTimeoutMs },
    );
  } catch (error) {
    if (error instanceof LockTimeoutError) throw error;
    if (error instanceof StatementTimeoutError)
      throw new BusinessLogicError(`A rollback statement took longer than ${settings.ddlTimeoutMs / 1000} seconds.`);
    if (error instanceof AppError && error.status < 500 && !(error.cause instanceof Error)) throw error;
    const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new BusinessLogicError(`The rollback could not be applied: ${message}`);
  }
  forgetTableDescriptors(site.schemaName, table.physical_table_name);
  const dropped = op.steps.filter((s) => s.type === 'drop_column').map((s) => s.column);
  const restored =
    dropped.length === 0
      ? ''
      : op.tombstones_swept_at === null
        ? ` Dropped columns (${dropped.join(', ')}) were restored with their data (within the retention window).`
        : ` Dropped columns (${dropped.join(', ')}) were recreated empty: their retention window had passed and dropped data is not recovered.`;
  return {
    success: true,
    message: `Schema operation ${revisionId} was rolled back.${restored}`,
    operations_reversed: op.steps.length,
    new_status: 'ROLLED_BACK',
  };
}
