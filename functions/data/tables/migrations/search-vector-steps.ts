// The generated search column of a table with `search` (a tsvector over its source fields and its GIN
// index): a plan that changes the sources, or their names or types, drops the column before its other
// steps and adds it back after them. Flat and jsonb plans share these two steps.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import { constraintName } from '../constraint-names.ts';
import { ddlText, searchExpression } from '../ddl.ts';
import { SEARCH_VECTOR_FIELD, type TableDescriptor } from '../table-descriptor.ts';
import type { PlannedStep } from './migration-steps.ts';

type StepInput = Omit<PlannedStep, 'phase'>;

export function searchVectorSteps(
  before: TableDescriptor,
  after: TableDescriptor,
  sourcesChange: boolean,
): { drop: StepInput | undefined; add: StepInput | undefined } {
  const table = sql`${ident(after.schemaName)}.${ident(after.tableName)}`;
  const alter = (rest: SQL) => ddlText(sql`alter table ${table} ${rest}`);
  const searchIndex = constraintName(after.tableName, `${SEARCH_VECTOR_FIELD}_idx`);
  const columnSql = (desc: TableDescriptor) => [
    alter(sql`add column ${ident(SEARCH_VECTOR_FIELD)} tsvector generated always as (${searchExpression(desc)}) stored`),
    ddlText(sql`create index ${ident(searchIndex)} on ${table} using gin (${ident(SEARCH_VECTOR_FIELD)})`),
  ];
  const dropSql = [alter(sql`drop column ${ident(SEARCH_VECTOR_FIELD)}`)];
  const drop: StepInput | undefined =
    before.search !== undefined && sourcesChange
      ? {
          type: 'drop_search_vector',
          column: SEARCH_VECTOR_FIELD,
          class: 'instant',
          is_safe: true,
          sql: dropSql,
          rollback_sql: columnSql(before),
        }
      : undefined;
  const add: StepInput | undefined =
    after.search !== undefined && (before.search === undefined || sourcesChange)
      ? {
          type: 'add_search_vector',
          column: SEARCH_VECTOR_FIELD,
          class: 'data-dependent',
          is_safe: true,
          sql: columnSql(after),
          rollback_sql: dropSql,
        }
      : undefined;
  return { drop, add };
}
