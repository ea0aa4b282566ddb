// `validate_data`: a record it accepts is one a write accepts. Beyond the checks a write makes before
// it reaches the table (record-checks.ts), the database's own: a unique value another record holds, a
// foreign key naming no record. A primary key already stored is not an error: the record may be
// written back over its own (PATCH, upsert), and a record read back validates unchanged. Set-based:
// one statement per constraint over all the rows.
import type { SQL } from 'drizzle-orm';
import type { Queryable } from '#shared/db/database.ts';
import { identifier, identifierLiteral } from '#shared/db/sql-identifiers.ts';
import { sql } from '#shared/db/sql.ts';
import { addFieldMessages } from '#shared/errors.ts';
import { stringifyExactJson } from '#shared/json/exact-json.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { columnType } from './ddl.ts';
import { uniqueKey } from './field-types.ts';
import { checkRows, rowsVerdict, type RecordErrors, type RecordValues } from './record-checks.ts';
import { JSONB_DATA_COLUMN, type FieldDescriptor, type TableDescriptor } from './table-descriptor.ts';
import { compileTarget, storedTarget } from './table-lookup.ts';
import { tablesOfApp, type DatatableRow } from './table-repository.ts';
import { compileTable } from './table-schema.ts';

// The messages a write answers for the same violations (records/record-service.ts).
const TAKEN = 'A record with this value already exists.';
const NO_REFERENCED_RECORD = 'The referenced record does not exist.';

// Upper case and quoted: no field (always lower case) can shadow them.
const CANDIDATE = sql.raw('"C"');
const ROW_INDEX = sql.raw('"R"');
const VALUES = sql.raw('"V"');
const STORED = sql.raw('"T"');

/** One database check: the rows it concerns and the statement answering those that break it. */
interface ConstraintCheck {
  field: string;
  message: string;
  rows: number[];
  statement: (candidates: SQL) => SQL;
}

function ownColumn(table: TableDescriptor, field: FieldDescriptor): boolean {
  return table.provider === 'flat_table' || table.primaryKey.includes(field.name);
}

/** A member of a jsonb table's `data` as its unique expression index reads it (ddl.ts `fieldRef`). */
function member(source: SQL, field: FieldDescriptor): SQL {
  const name = identifierLiteral(field.name);
  if (['integer', 'number', 'year'].includes(field.type)) return sql`((${source} ->> ${name})::numeric)`;
  if (field.type === 'boolean') return sql`((${source} ->> ${name})::boolean)`;
  if (columnType(field) === 'jsonb') return sql`(${source} -> ${name})`;
  return sql`(${source} ->> ${name})`;
}

/** The field of a stored row (`T`): its column, or its member of `data`. */
function storedValue(table: TableDescriptor, field: FieldDescriptor): SQL {
  return ownColumn(table, field)
    ? sql`${STORED}.${identifier(field.name)}`
    : member(sql`${STORED}.${identifier(JSONB_DATA_COLUMN)}`, field);
}

/** The field of a candidate row, as the write would store it in `table` (typed as the column, or as the member). */
function candidateValue(table: TableDescriptor, field: FieldDescriptor): SQL {
  const source = sql`${CANDIDATE}.${VALUES}`;
  if (!ownColumn(table, field)) return member(source, field);
  const type = columnType(field);
  if (type === 'jsonb') return sql`nullif(${source} -> ${identifierLiteral(field.name)}, 'null'::jsonb)`;
  return sql`(${source} ->> ${identifierLiteral(field.name)})::${sql.raw(type)}`;
}

function qualified(table: TableDescriptor): SQL {
  return sql`${identifier(table.schemaName)}.${identifier(table.tableName)}`;
}

function fieldsOf(table: TableDescriptor, names: readonly string[]): FieldDescriptor[] {
  return names.map((name) => table.fields.find((field) => field.name === name)!);
}

function given(values: RecordValues, fields: readonly FieldDescriptor[]): boolean {
  return fields.every((field) => values[field.name] !== undefined && values[field.name] !== null);
}

function rowsGiving(values: readonly RecordValues[], fields: readonly FieldDescriptor[]): number[] {
  return values.flatMap((row, index) => (given(row, fields) ? [index] : []));
}

/**
 * Each unique field (the primary key's own column excepted), as the table's unique constraints and
 * indexes hold it: taken when a stored record with another primary key holds the value (a row
 * without its key, which the table will number, meets every stored record).
 */
function uniqueChecks(table: TableDescriptor, values: readonly RecordValues[]): ConstraintCheck[] {
  const singleKey = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined;
  const keyFields = fieldsOf(table, table.primaryKey);
  // Without a primary key every stored record is another one.
  const anotherRecord =
    keyFields.length === 0
      ? sql`true`
      : sql`(${sql.join(
          keyFields.map((field) => storedValue(table, field)),
          sql`, `,
        )}) is distinct from (${sql.join(
          keyFields.map((field) => candidateValue(table, field)),
          sql`, `,
        )})`;
  return table.fields
    .filter((field) => field.constraints.unique === true && field.name !== singleKey)
    .map((field) => ({
      field: field.name,
      message: TAKEN,
      rows: rowsGiving(values, [field]),
      statement: (candidates) =>
        sql`select ${CANDIDATE}.${ROW_INDEX} as row from ${candidates}
          where exists (select 1 from ${qualified(table)} ${STORED}
            where ${storedValue(table, field)} = ${candidateValue(table, field)} and ${anotherRecord})`,
    }));
}

/**
 * The foreign keys the database enforces (a jsonb table's only on its key columns, as materialize
 * makes them), with the rows whose key names a record. Like the database (MATCH SIMPLE) a key with a
 * null part is not checked, and a row may reference another row of the same write.
 */
function foreignKeyChecks(
  table: TableDescriptor,
  keys: ReturnType<typeof compileTable>['foreignKeys'],
  resolve: (name: string) => TableDescriptor | undefined,
  selfName: string,
  values: readonly RecordValues[],
): ConstraintCheck[] {
  const checks: ConstraintCheck[] = [];
  for (const fk of keys) {
    if (table.provider === 'jsonb' && !fk.fields.every((name) => table.primaryKey.includes(name))) continue;
    const isSelf = fk.reference.resource === '' || fk.reference.resource === selfName;
    const target = isSelf ? table : resolve(fk.reference.resource);
    if (target === undefined) continue;
    if (target.provider === 'jsonb' && !fk.reference.fields.every((name) => target.primaryKey.includes(name))) continue;
    const fields = fieldsOf(table, fk.fields);
    const targetFields = fieldsOf(target, fk.reference.fields);
    const keyOf = (row: RecordValues, from: readonly FieldDescriptor[]) =>
      from.map((field, i) => uniqueKey(targetFields[i]!, 'flat_table', row[field.name])).join('\u0000');
    const inBatch = isSelf ? new Set(values.filter((row) => given(row, targetFields)).map((row) => keyOf(row, targetFields))) : undefined;
    const rows = rowsGiving(values, fields).filter((index) => inBatch?.has(keyOf(values[index]!, fields)) !== true);
    const matches = sql.join(
      targetFields.map((field, i) => sql`${STORED}.${identifier(field.name)} = ${candidateValue(table, fields[i]!)}`),
      sql` and `,
    );
    checks.push({
      field: fk.fields.join(','),
      message: NO_REFERENCED_RECORD,
      rows,
      statement: (candidates) =>
        sql`select ${CANDIDATE}.${ROW_INDEX} as row from ${candidates}
          where not exists (select 1 from ${qualified(target)} ${STORED} where ${matches})`,
    });
  }
  return checks;
}

/** The rows a check concerns, as one jsonb parameter unpacked into `C("R", "V")`. */
function candidatesOf(rows: readonly number[], values: readonly RecordValues[]): SQL {
  const json = stringifyExactJson(rows.map((index) => ({ R: index, V: values[index] })));
  return sql`jsonb_to_recordset(${json}::jsonb) as ${CANDIDATE}(${ROW_INDEX} integer, ${VALUES} jsonb)`;
}

/** `validate_data` on a table (a reference's source for a reference): `{is_valid, errors, validated_rows}`. */
export async function validateData(db: Queryable, site: Tenant, table: DatatableRow, rows: unknown[]) {
  const target = { ...compileTarget(site, table, await tablesOfApp(db, site, table.app_id)), ...storedTarget(table) };
  const compiled = compileTable(table.json_schema, target);
  const { errors, values } = checkRows(compiled.descriptor, rows);
  if (table.is_materialized) await addStoredConflicts(db, compiled, (name) => target.resolveTable?.(name), table.name, values, errors);
  return rowsVerdict(errors);
}

async function addStoredConflicts(
  db: Queryable,
  compiled: ReturnType<typeof compileTable>,
  resolve: (name: string) => TableDescriptor | undefined,
  selfName: string,
  values: readonly RecordValues[],
  errors: RecordErrors[],
): Promise<void> {
  const table = compiled.descriptor;
  const checks = [...uniqueChecks(table, values), ...foreignKeyChecks(table, compiled.foreignKeys, resolve, selfName, values)].filter(
    (check) => check.rows.length > 0,
  );
  const broken = await Promise.all(checks.map((check) => db.rows<{ row: number }>(check.statement(candidatesOf(check.rows, values)))));
  checks.forEach((check, i) => {
    for (const { row } of broken[i]!) addFieldMessages(errors[Number(row)]!, check.field, check.message);
  });
}
