// Materialization: the table's CREATE TABLE plan runs in one transaction with a 30 s statement
// limit and is recorded as a CREATE_TABLE schema operation (PENDING → IN_PROGRESS → SUCCESS/FAILED).
import type { Principal } from '#shared/auth/principal.ts';
import { readPostgresFailure, StatementTimeoutError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { AppError, BusinessLogicError, ConflictError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { assertManagesData } from '../apps/data-access.ts';
import { createTablePlan } from './ddl.ts';
import {
  findOperation,
  findTable,
  finishOperation,
  insertOperation,
  lastRevision,
  markMaterialized,
  newRevisionId,
  startOperation,
  tablesOfApp,
  type DatatableRow,
  type OperationRow,
} from './table-repository.ts';
import { compileTable } from './table-schema.ts';
import { compileTarget, existingTable } from './table-lookup.ts';
import { clashMessage, ownedPhysicalNames, physicalNameClash, type PhysicalNameClash } from './physical-names.ts';
import type { TableAddress } from './table-schemas.ts';

export const DDL_TIMEOUT_MS = 30_000;

function physicalNameConflict(clash: PhysicalNameClash): ConflictError {
  return new ConflictError(clashMessage(clash), {
    extras: { physical_table_name: clash.physicalName, conflicts_with: `${clash.table.app_slug}/${clash.table.name}` },
  });
}

export async function materialize(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  address: TableAddress,
): Promise<{ table: DatatableRow; operation: OperationRow }> {
  await assertManagesData(db, site, caller);
  const table = await existingTable(db, site, address);
  if (table.is_materialized) throw new ConflictError(`The table "${table.name}" is already materialized.`);
  const appTables = await tablesOfApp(db, site, table.app_id);
  const compiled = compileTable(table.json_schema, compileTarget(site, table, appTables));
  const referenced = new Map<string, string>();
  for (const fk of compiled.foreignKeys) {
    if (fk.reference.resource === table.name) continue;
    const target = appTables.find((t) => t.name === fk.reference.resource)!;
    if (!target.is_materialized || !target.is_active) {
      throw ValidationError.forFields(
        { json_schema: [`The foreign key target table "${target.name}" is not materialized; materialize it first.`] },
        `The foreign key target table "${target.name}" is not materialized; materialize it first.`,
      );
    }
    referenced.set(target.name, target.physical_table_name);
  }
  // Tables defined before names were checked at creation may share a physical name (DECISIONS'
  // rule repeats across apps) or a hierarchy's edges table: refuse, naming the owner.
  const owned = ownedPhysicalNames(table.physical_table_name, compiled.hierarchy !== undefined);
  const clash = await physicalNameClash(db, site, owned, { except: table.id, materializedOnly: true });
  if (clash !== undefined) throw physicalNameConflict(clash);
  const plan = createTablePlan(compiled, referenced);
  const revisionId = newRevisionId();
  await insertOperation(db, site, {
    tableId: table.id,
    tableName: table.physical_table_name,
    revisionId,
    type: 'CREATE_TABLE',
    operations: plan.operations,
    executedSql: plan.texts.map((text) => `${text};`).join('\n'),
    rollbackSql: `${plan.rollbackSql};`,
    parent: await lastRevision(db, site, table.id),
    userId: caller.id,
  });
  await startOperation(db, site, revisionId);
  try {
    await db.transaction(
      async (tx) => {
        const locked = await findTable(tx, site, table.app_id, table.name, { forUpdate: true });
        if (locked === undefined || locked.is_materialized) throw new ConflictError(`The table "${table.name}" is already materialized.`);
        for (const statement of plan.statements) await tx.run(statement);
        await markMaterialized(tx, site, table.id);
      },
      { statementTimeoutMs: DDL_TIMEOUT_MS, lockTimeoutMs: 5_000 },
    );
  } catch (error) {
    const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    await finishOperation(db, site, revisionId, 'FAILED', message);
    if (error instanceof StatementTimeoutError) throw new BusinessLogicError(`The materialization took longer than 30 seconds: ${message}`);
    // 42P07: a table of that name is there after all (made meanwhile, or outside any datatable).
    if (readPostgresFailure(error)?.code === '42P07') {
      const again = await physicalNameClash(db, site, owned, { except: table.id, materializedOnly: true });
      if (again !== undefined) throw physicalNameConflict(again);
      throw new ConflictError(`A database table named ${owned.map((name) => `"${name}"`).join(' or ')} already exists.`, {
        extras: { physical_table_name: owned },
      });
    }
    if (error instanceof AppError) throw error;
    throw error;
  }
  await finishOperation(db, site, revisionId, 'SUCCESS');
  return { table: (await findTable(db, site, table.app_id, table.name))!, operation: (await findOperation(db, site, revisionId))! };
}
