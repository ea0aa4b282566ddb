// Schema evolution of a materialized table: the plan of a new schema with its live preflight
// (preview-changes, validate-schema), and the migration a schema PATCH starts: refused while unsafe
// without `allow_data_loss` or while rows would break it, recorded PENDING, run by the state machine,
// awaited within the request budget (else 202 with the operation).
import type { Principal } from '#shared/auth/principal.ts';
import type { Config } from '#shared/config.ts';
import type { Database, Queryable } from '#shared/db/database.ts';
import { BusinessLogicError, ConflictError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { loadPatternEngineFor } from '#shared/text/pattern-engine.ts';
import { datasourceAllowsDataLoss } from '../../apps/app-repository.ts';
import { assertManagesData } from '../../apps/data-access.ts';
import { findTable, lastRevision, newRevisionId, tablesOfApp, type DatatableRow } from '../table-repository.ts';
import { analyzeTableSchema, compileTable, schemaHash, type CompiledTable } from '../table-schema.ts';
import { compileTarget, storedTarget } from '../table-lookup.ts';
import { mapFields } from './field-mapping.ts';
import { planMigration } from './migration-plan.ts';
import { planSql, type PlannedStep } from './migration-steps.ts';
import { migrationStarter } from './migration-runner.ts';
import { findMigration, insertMigration, type MigrationRow } from './operation-repository.ts';
import { castableFor, estimateDuration, estimatedRows, runPreflights, type PreflightResult } from './preflight.ts';
import { runValueChecks, type ValueCheck } from './value-preflight.ts';

export type MigrationSettings = Config['schemaMigrations'];

export interface MigrationPlan {
  before: CompiledTable;
  after: CompiledTable;
  steps: PlannedStep[];
  /** The raw new schema (its rename hints say which old column each field continues). */
  newSchema: unknown;
}

/** Plans `newSchema` against the table's stored one; 400 for an invalid schema or an unmaterialized FK target. */
export async function planChange(db: Queryable, site: Tenant, table: DatatableRow, newSchema: unknown): Promise<MigrationPlan> {
  await loadPatternEngineFor([newSchema]);
  const appTables = await tablesOfApp(db, site, table.app_id);
  const target = compileTarget(site, table, appTables);
  // The stored schema may hold forms refused since it was saved: read it as every stored schema is.
  const before = compileTable(table.json_schema, { ...target, ...storedTarget(table) });
  const after = compileTable(newSchema, target);
  if ((before.hierarchy === undefined) !== (after.hierarchy === undefined)) {
    // The edges table is made with the node table; turning a hierarchy on or off later is not planned.
    const message = '"hierarchy" cannot be switched on or off once the table is materialized; its edge types may change.';
    throw ValidationError.forFields({ json_schema: [message] }, message);
  }
  const referenced = new Map<string, string>();
  for (const fk of after.foreignKeys) {
    if (fk.reference.resource === table.name) continue;
    const other = appTables.find((t) => t.name === fk.reference.resource)!;
    if (!other.is_materialized || !other.is_active) {
      const message = `The foreign key target table "${other.name}" is not materialized; materialize it first.`;
      throw ValidationError.forFields({ json_schema: [message] }, message);
    }
    referenced.set(other.name, other.physical_table_name);
  }
  const steps = planMigration({
    before,
    after,
    afterSchema: newSchema,
    referencedTables: referenced,
    baseHash: table.schema_hash,
    castable: await castableFor(db, site.schemaName),
  });
  return { before, after, steps, newSchema };
}

/** The app-side checks of a plan's patterns and formats (value-preflight.ts). */
function valueChecks(db: Queryable, plan: MigrationPlan): Promise<ValueCheck[]> {
  return runValueChecks(
    db,
    plan.before.descriptor,
    plan.after.descriptor,
    mapFields(plan.before.descriptor, plan.after.descriptor, plan.newSchema).origin,
  );
}

function sampleText(result: PreflightResult): string {
  return result.sample_ids.length === 0 ? '' : ` (for example ${result.sample_ids.map((id) => JSON.stringify(id)).join(', ')})`;
}

/** The warnings of a plan: each unsafe or destructive step's own, and each preflight that found rows. */
function warningsOf(
  steps: readonly PlannedStep[],
  preflights: ReadonlyMap<number, PreflightResult>,
  checks: readonly ValueCheck[],
): string[] {
  const warnings: string[] = [];
  for (const { column, result } of checks) {
    if (result.violating_rows > 0)
      warnings.push(
        `${result.violating_rows} ${result.violating_rows === 1 ? 'row' : 'rows'}: ${result.describes} in "${column}"${sampleText(result)}.`,
      );
  }
  steps.forEach((step, index) => {
    if (step.warning !== undefined) warnings.push(step.warning);
    const found = preflights.get(index);
    if (found !== undefined && found.violating_rows > 0) {
      const what = `${step.type}${step.column ? ` on "${step.column}"` : ''}`;
      warnings.push(
        `${found.violating_rows} ${found.violating_rows === 1 ? 'row' : 'rows'}: ${found.describes} for ${what}${sampleText(found)}.`,
      );
    }
  });
  return warnings;
}

function operationView(step: PlannedStep, preflight: PreflightResult | undefined) {
  return {
    type: step.type,
    column: step.column,
    sql: step.sql.map((s) => `${s};`).join('\n'),
    is_safe: step.is_safe,
    class: step.class,
    phase: step.phase,
    rollback_sql: step.rollback_sql.map((s) => `${s};`).join('\n'),
    ...(step.warning !== undefined ? { warning: step.warning } : {}),
    ...(preflight !== undefined ? { preflight } : {}),
  };
}

function assertMaterialized(table: DatatableRow): void {
  if (!table.is_materialized)
    throw new ConflictError(`The table "${table.name}" is not materialized; change its schema with PATCH until it is.`);
}

/** Previewing scans the table (the preflight), so it is for those who may change the schema. */
export async function previewChanges(db: Queryable, site: Tenant, caller: Principal, table: DatatableRow, newSchema: unknown) {
  await assertManagesData(db, site, caller);
  assertMaterialized(table);
  const plan = await planChange(db, site, table, newSchema);
  const preflights = await runPreflights(db, plan.before.descriptor, plan.steps);
  const checks = await valueChecks(db, plan);
  const rows = await estimatedRows(db, plan.before.descriptor);
  const blocked = [...preflights.values(), ...checks.map((c) => c.result)].some((p) => p.violating_rows > 0 && p.blocking);
  return {
    operations: plan.steps.map((step, index) => operationView(step, preflights.get(index))),
    is_safe: plan.steps.every((s) => s.is_safe) && !blocked,
    warnings: warningsOf(plan.steps, preflights, checks),
    estimated_duration_ms: estimateDuration(plan.steps, rows),
  };
}

export async function validateSchema(db: Queryable, site: Tenant, caller: Principal, table: DatatableRow, schema: unknown) {
  await assertManagesData(db, site, caller);
  await loadPatternEngineFor([schema]);
  const appTables = await tablesOfApp(db, site, table.app_id);
  const analyzed = analyzeTableSchema(schema, compileTarget(site, table, appTables));
  if ('problems' in analyzed) return { valid: false, errors: analyzed.problems, warnings: [] };
  if (!table.is_materialized) {
    // The spec: validation warns that a foreign key's target must be materialized first.
    const unmaterialized = analyzed.compiled.foreignKeys
      .map((fk) => appTables.find((t) => t.name === fk.reference.resource && t.name !== table.name))
      .filter((t): t is DatatableRow => t !== undefined && !t.is_materialized);
    const warnings = [...new Set(unmaterialized.map((t) => t.name))].map(
      (name) => `The foreign key target table "${name}" is not materialized; materialize it first.`,
    );
    return { valid: true, errors: [], warnings };
  }
  try {
    const preview = await previewChanges(db, site, caller, table, schema);
    return { valid: true, errors: [], warnings: preview.warnings };
  } catch (error) {
    if (error instanceof ValidationError || error instanceof BusinessLogicError) {
      const problems = (error.extras?.json_schema as string[] | undefined) ?? Object.values(error.fieldErrors ?? {}).flat();
      return { valid: false, errors: problems.length > 0 ? problems : [error.message], warnings: [] };
    }
    throw error;
  }
}

export type MigrationOutcome = { done: true; table: DatatableRow } | { done: false; operation: MigrationRow };

const TERMINAL = new Set(['SUCCESS', 'FAILED', 'ROLLED_BACK']);

/** Waits for the operation to end within the budget: on the local execution, else by reading its row. */
async function awaitOperation(
  db: Queryable,
  site: Tenant,
  revisionId: string,
  finished: Promise<unknown> | undefined,
  waitMs: number,
): Promise<MigrationRow> {
  const deadline = Date.now() + waitMs;
  if (waitMs === 0) {
    // No budget: answer with the operation as it stands, whatever the runner has done meanwhile.
  } else if (finished !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([finished, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  } else {
    while (Date.now() < deadline) {
      const row = await findMigration(db, site, revisionId);
      if (row !== undefined && TERMINAL.has(row.status)) return row;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return (await findMigration(db, site, revisionId))!;
}

/** The answer for a FAILED migration, by the kind of error its operation recorded. */
export function failureError(op: MigrationRow): Error {
  const message = op.error_message ?? 'The schema migration failed.';
  const extras = { operation: op.revision_id };
  // Applied but not validated (its revert failed too): whatever the error, the change is in place,
  // and the message says how to undo it; a 409 would read as "nothing changed, send it again".
  if (op.applied_at !== null) return new BusinessLogicError(message, { extras });
  switch (op.error_code) {
    case 'StaleSchemaError':
      return new ConflictError(`${message} Read the table again and send the change on its current schema.`, { extras });
    case 'LockTimeoutError':
    case 'MigrationBusyError':
      return new ConflictError('The table is busy (its lock could not be taken in time); try again shortly.', {
        extras,
        headers: { 'Retry-After': '1' },
      });
    case 'StatementTimeoutError':
      return new BusinessLogicError(`A DDL statement took longer than its time limit (30 seconds): ${message}`, { extras });
    default:
      return new BusinessLogicError(message, { extras });
  }
}

/**
 * Checks a migration of `table` to `newSchema` and records it PENDING; answers its revision id.
 * Refusals come before anything is recorded: an invalid schema, rows that would break a step,
 * unsafe steps without `allow_data_loss` (400 with the warnings at the top level).
 */
export async function recordMigration(
  db: Queryable,
  site: Tenant,
  callerId: number,
  table: DatatableRow,
  newSchema: unknown,
  allowDataLoss: boolean,
): Promise<string> {
  const plan = await planChange(db, site, table, newSchema);
  const preflights = await runPreflights(db, plan.before.descriptor, plan.steps);
  const checks = await valueChecks(db, plan);
  const warnings = warningsOf(plan.steps, preflights, checks);
  const blocked =
    checks.some((check) => check.result.violating_rows > 0) ||
    plan.steps.some((_step, index) => {
      const found = preflights.get(index);
      return found !== undefined && found.violating_rows > 0 && found.blocking;
    });
  if (blocked) {
    throw new ValidationError('Rows of the table would break this schema change; fix them or change the schema.', { extras: { warnings } });
  }
  if (!allowDataLoss && plan.steps.some((s) => !s.is_safe) && !(await datasourceAllowsDataLoss(db, site, table.data_source_id))) {
    throw new ValidationError('This schema change may lose data; send allow_data_loss: true to apply it.', { extras: { warnings } });
  }
  const revisionId = newRevisionId();
  const { executed, rollback } = planSql(plan.steps);
  await insertMigration(db, site, {
    tableId: table.id,
    tableName: table.physical_table_name,
    revisionId,
    parent: await lastRevision(db, site, table.id),
    steps: plan.steps,
    operations: plan.steps.map((s) => ({
      op: s.type,
      column: s.column,
      object: s.object ?? null,
      class: s.class,
      is_safe: s.is_safe,
      phase: s.phase,
      sql: s.sql,
      rollback_sql: s.rollback_sql,
    })),
    executedSql: executed.map((s) => `${s};`).join('\n'),
    rollbackSql: rollback.map((s) => `${s};`).join('\n'),
    baseHash: table.schema_hash,
    targetHash: schemaHash(newSchema),
    previousSchema: table.json_schema,
    previousPatternDialect: table.pattern_dialect,
    targetSchema: newSchema,
    userId: callerId,
  });
  return revisionId;
}

/** Migrates a materialized table: recorded, run by the state machine, awaited within the budget. */
export async function migrateTable(
  db: Database,
  settings: MigrationSettings,
  site: Tenant,
  caller: Principal,
  table: DatatableRow,
  newSchema: unknown,
  allowDataLoss: boolean,
): Promise<MigrationOutcome> {
  await assertManagesData(db, site, caller);
  const revisionId = await recordMigration(db, site, caller.id, table, newSchema, allowDataLoss);
  const starter = await migrationStarter(db, settings);
  const started = await starter.start(revisionId, { schema_name: site.schemaName, revision_id: revisionId });
  const op = await awaitOperation(db, site, revisionId, started.finished, settings.waitMs);
  if (settings.waitMs === 0) return { done: false, operation: op };
  if (op.status === 'SUCCESS') return { done: true, table: (await findTable(db, site, table.app_id, table.name))! };
  if (op.status === 'FAILED') throw failureError(op);
  return { done: false, operation: op };
}
