// Statement builders for record writes over either storage layout. Rows travel as one jsonb
// parameter and are unpacked in SQL (`json_to_recordset`, `jsonb_array_elements`), so a bulk write is one statement.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { JSONB_DATA_COLUMN, type FieldDescriptor, type TableDescriptor } from '#functions/data/tables/table-descriptor.ts';
import { identifier, identifierLiteral } from '#shared/db/sql-identifiers.ts';
import { castTo, isJsonField, ROW, sqlType, tableSql, typedValue } from './query/field-sql.ts';
import { recordText, softDeleteCondition } from './query/compile.ts';
import type { RecordValues } from './record-preparation.ts';
import { stringifyExactJson } from '#shared/json/exact-json.ts';

// Upper case and quoted: field names are lower case, so no column of the table can shadow it (a
// field named `x` once turned `x ? 'f'` into a test on that column).
const ELEMENT = sql.raw('"X"');

export function fieldOf(table: TableDescriptor, name: string): FieldDescriptor {
  const field = table.fields.find((candidate) => candidate.name === name);
  if (!field) throw new Error(`field ${name} is not in the descriptor`);
  return field;
}

export function keyFields(table: TableDescriptor): FieldDescriptor[] {
  return table.primaryKey.map((name) => fieldOf(table, name));
}

export function ownColumns(table: TableDescriptor): FieldDescriptor[] {
  return table.provider === 'flat_table' ? table.fields : keyFields(table);
}

/** A field read out of a jsonb object, typed for its column (JSON null becomes SQL null). */
function extract(source: SQL, field: FieldDescriptor): SQL {
  if (isJsonField(field)) return sql`nullif(${source}->${identifierLiteral(field.name)}, 'null'::jsonb)`;
  return sql`(${source}->>${identifierLiteral(field.name)})${castTo(field)}`;
}

/** The non-key part of a row object, for the `data` column of a jsonb table. */
function dataPart(source: SQL, table: TableDescriptor): SQL {
  return sql`(${source} - ${sql.param(table.primaryKey)}::text[])`;
}

function usedColumns(table: TableDescriptor, rows: RecordValues[]): FieldDescriptor[] {
  return ownColumns(table).filter((field) => rows.some((row) => row[field.name] !== undefined));
}

function rowsParameter(rows: RecordValues[]): SQL {
  return sql`${stringifyExactJson(rows)}::jsonb`;
}

/**
 * The rows as `json` for `json_to_recordset`: PostgreSQL only checks json text where jsonb builds a
 * binary tree first, and for a batch of 10k records that conversion was a fifth of the statement.
 * The text is ours (validated canonical values; integers past 2^53 as exact digits), so jsonb's
 * normalisation buys nothing.
 */
function rowsAsJson(rows: RecordValues[]): SQL {
  return sql`${stringifyExactJson(rows)}::json`;
}

/**
 * `INSERT ... SELECT ... FROM` the rows parameter: every row in one statement. A flat table reads the
 * rows with `json_to_recordset` and a column list typed like its columns (PostgreSQL converts each
 * value with the column type's input, as the casts would, and a JSON null is SQL null); a jsonb table
 * unpacks `jsonb_array_elements` into its key and `data`.
 */
function insertHead(table: TableDescriptor, rows: RecordValues[]): { columns: SQL[]; values: SQL[]; source: SQL } {
  const columns = usedColumns(table, rows);
  const names = columns.map((field) => identifier(field.name));
  if (table.provider === 'flat_table' && columns.length > 0) {
    const definitions = columns.map((field) => sql`${identifier(field.name)} ${sql.raw(sqlType(field))}`);
    return {
      columns: names,
      values: columns.map((field) => sql`${ELEMENT}.${identifier(field.name)}`),
      source: sql`json_to_recordset(${rowsAsJson(rows)}) as ${ELEMENT}(${sql.join(definitions, sql`, `)})`,
    };
  }
  const values = columns.map((field) => extract(ELEMENT, field));
  if (table.provider === 'jsonb') {
    names.push(identifier(JSONB_DATA_COLUMN));
    values.push(dataPart(ELEMENT, table));
  }
  return { columns: names, values, source: sql`jsonb_array_elements(${rowsParameter(rows)}) as ${ELEMENT}` };
}

export function insertSql(table: TableDescriptor, rows: RecordValues[]): SQL {
  const { columns, values, source } = insertHead(table, rows);
  const target =
    columns.length === 0 ? sql`default values` : sql`(${sql.join(columns, sql`, `)}) select ${sql.join(values, sql`, `)} from ${source}`;
  return sql`insert into ${tableSql(table)} as ${ROW} ${target} returning ${recordText(table)} as record`;
}

/** The same insert, answering one JSON array text of the created records (`records`) built by the database. */
export function insertAsJsonSql(table: TableDescriptor, rows: RecordValues[]): SQL {
  return sql`with created as (${insertSql(table, rows)}) select '[' || coalesce(string_agg(record, ','), '') || ']' as records from created`;
}

/** Upsert on the primary key or a unique field; `inserted` tells a new row from an updated one. */
export function upsertSql(
  table: TableDescriptor,
  rows: RecordValues[],
  uniqueFields: FieldDescriptor[],
  provided: ReadonlySet<string>,
): SQL {
  const { columns, values, source } = insertHead(table, rows);
  const conflictOnKey = uniqueFields.every((field) => table.primaryKey.includes(field.name));
  const target =
    table.provider === 'flat_table' || conflictOnKey
      ? sql.join(
          uniqueFields.map((field) => identifier(field.name)),
          sql`, `,
        )
      : sql.join(
          uniqueFields.map((field) => sql`(${identifier(JSONB_DATA_COLUMN)}->>${identifierLiteral(field.name)})`),
          sql`, `,
        );
  const conflictNames = new Set(uniqueFields.map((field) => field.name));
  const updates =
    table.provider === 'jsonb'
      ? [
          sql`${identifier(JSONB_DATA_COLUMN)} = ${ROW}.${identifier(JSONB_DATA_COLUMN)} || (select coalesce(jsonb_object_agg(key, value), '{}'::jsonb) from jsonb_each(excluded.${identifier(JSONB_DATA_COLUMN)}) where key = any(${sql.param([...provided])}::text[]))`,
        ]
      : usedColumns(table, rows)
          // An update changes only what the client sent: never the key, never a default or generated value.
          .filter((field) => !conflictNames.has(field.name) && !table.primaryKey.includes(field.name) && provided.has(field.name))
          .map((field) => sql`${identifier(field.name)} = excluded.${identifier(field.name)}`);
  if (updates.length === 0) updates.push(sql`${identifier(uniqueFields[0]!.name)} = excluded.${identifier(uniqueFields[0]!.name)}`);
  return sql`insert into ${tableSql(table)} as ${ROW} (${sql.join(columns, sql`, `)})
    select ${sql.join(values, sql`, `)} from ${source}
    on conflict (${target}) do update set ${sql.join(updates, sql`, `)}
    returning ${recordText(table)} as record, (${ROW}.xmax::text = '0') as inserted`;
}

function keyMatches(table: TableDescriptor, source: SQL): SQL {
  return sql.join(
    keyFields(table).map((field) => sql`${typedValue(table, field)} = ${extract(source, field)}`),
    sql` and `,
  );
}

function visible(table: TableDescriptor): SQL {
  return softDeleteCondition(table, 'exclude') ?? sql`true`;
}

/** The single-record key condition, the key value bound as text and cast to its type. */
export function keyEquals(table: TableDescriptor, id: string): SQL {
  const [field] = keyFields(table);
  return sql`${typedValue(table, field!)} = ${id}::text${castTo(field!)}`;
}

export function detailSql(table: TableDescriptor, id: string): SQL {
  return sql`select ${recordText(table)} as record from ${tableSql(table)} as ${ROW} where ${keyEquals(table, id)} and ${visible(table)}`;
}

/** PATCH of many rows, each carrying its key; fields a row omits keep their value. */
export function updateSql(table: TableDescriptor, rows: RecordValues[]): SQL {
  const keys = new Set(table.primaryKey);
  const assignments =
    table.provider === 'jsonb'
      ? [sql`${identifier(JSONB_DATA_COLUMN)} = ${ROW}.${identifier(JSONB_DATA_COLUMN)} || ${dataPart(ELEMENT, table)}`]
      : usedColumns(table, rows)
          .filter((field) => !keys.has(field.name))
          .map(
            (field) =>
              sql`${identifier(field.name)} = case when ${ELEMENT} ? ${field.name} then ${extract(ELEMENT, field)} else ${ROW}.${identifier(field.name)} end`,
          );
  if (assignments.length === 0) {
    const [key] = keyFields(table);
    assignments.push(sql`${identifier(key!.name)} = ${ROW}.${identifier(key!.name)}`);
  }
  return sql`update ${tableSql(table)} as ${ROW} set ${sql.join(assignments, sql`, `)}
    from jsonb_array_elements(${rowsParameter(rows)}) as ${ELEMENT}
    where ${keyMatches(table, ELEMENT)} and ${visible(table)}
    returning ${recordText(table)} as record`;
}

export function deleteWhereSql(table: TableDescriptor, where: SQL): SQL {
  const keys = keyFields(table).map((field) => sql`${typedValue(table, field)}`);
  const returning = sql`returning ${keys.length === 1 ? sql`${keys[0]}::text` : sql`null`} as id`;
  if (!table.softDelete) return sql`delete from ${tableSql(table)} as ${ROW} where ${where} ${returning}`;
  const flag = fieldOf(table, 'is_deleted');
  const assignment =
    table.provider === 'jsonb' && !table.primaryKey.includes(flag.name)
      ? sql`${identifier(JSONB_DATA_COLUMN)} = jsonb_set(${ROW}.${identifier(JSONB_DATA_COLUMN)}, ${sql.param([flag.name])}::text[], 'true'::jsonb)`
      : sql`${identifier(flag.name)} = true`;
  return sql`update ${tableSql(table)} as ${ROW} set ${assignment} where (${where}) and ${visible(table)} ${returning}`;
}

export function keyInSql(table: TableDescriptor, ids: string[]): SQL {
  const [field] = keyFields(table);
  return sql`${typedValue(table, field!)} = any(${sql.param(ids)}::text[]${castTo(field!)}[])`;
}
