// The CREATE TABLE statements of a compiled table, for both storage providers. Identifiers pass the
// safe-identifier check and are quoted by drizzle; DDL cannot take bind parameters, so the few
// literals (CHECK bounds, enum members, defaults) are rendered by `sqlLiteral` from typed values.
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
// `ident`: DDL texts are long, and the short name keeps them readable.
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import { renderPredicate, sqlLiteral, type PredicateLiteral } from './index-predicate.ts';
import {
  JSONB_DATA_COLUMN,
  SEARCH_CONFIGURATION,
  SEARCH_VECTOR_FIELD,
  type FieldDescriptor,
  type TableDescriptor,
} from './table-descriptor.ts';
import { edgesTableName } from './hierarchy-schema.ts';
import type { CompiledTable, ForeignKeySpec, IndexSpec } from './table-schema.ts';

export interface DdlPlan {
  statements: SQL[];
  /** The statement texts as executed (no parameters: DDL takes none). */
  texts: string[];
  rollbackSql: string;
  /** The structured list recorded as the operation's `alembic_operations`. */
  operations: Record<string, unknown>[];
}

const dialect = new PgDialect();

/** `<base>` when short enough, else a prefix and a hash, so generated names stay unique and ≤ 63. */
export function constraintName(table: string, suffix: string): string {
  const full = `${table}_${suffix}`;
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, 54).replace(/_+$/, '')}_${hash}`;
}

/** The column type of a field on a `flat_table` (and of key columns on `jsonb`). */
export function columnType(field: FieldDescriptor): string {
  switch (field.type) {
    case 'string':
      return field.format === 'uuid' ? 'uuid' : 'text';
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
      return 'timestamptz';
    case 'year':
      return 'integer';
    case 'yearmonth':
      return 'text';
    case 'duration':
      return 'interval';
    case 'object':
    case 'array':
    case 'geopoint':
    case 'geojson':
    case 'any':
      return 'jsonb';
  }
}

export function typedLiteral(field: FieldDescriptor, value: unknown): SQL {
  const type = columnType(field);
  if (type === 'jsonb') return sql`${sqlLiteral(JSON.stringify(value))}::jsonb`;
  if (type === 'bigint' || type === 'double precision' || type === 'integer' || type === 'boolean')
    return sqlLiteral(value as PredicateLiteral);
  return sql`${sqlLiteral(String(value))}::${sql.raw(type)}`;
}

/** A named CHECK of a field: its constraint name and its `check (...)` clause. */
export interface NamedCheck {
  name: string;
  clause: SQL;
}

/** The CHECK constraints a field's `constraints` compile to (also used by the migration planner). */
export function fieldChecks(table: string, field: FieldDescriptor): NamedCheck[] {
  const c = field.constraints;
  const col = ident(field.name);
  const checks: NamedCheck[] = [];
  const named = (suffix: string, predicate: SQL) =>
    checks.push({ name: constraintName(table, `${field.name}_${suffix}`), clause: sql`check (${predicate})` });
  if (c.minimum !== undefined) named('min', sql`${col} >= ${typedLiteral(field, c.minimum)}`);
  if (c.maximum !== undefined) named('max', sql`${col} <= ${typedLiteral(field, c.maximum)}`);
  // Lengths count as record-checks.ts counts them: characters, items, an object's keys.
  const length =
    field.type === 'array'
      ? sql`jsonb_array_length(${col})`
      : field.type === 'object'
        ? sql`jsonb_array_length(jsonb_path_query_array(${col}, '$.keyvalue()'))`
        : sql`char_length(${col})`;
  if (c.minLength !== undefined) named('min_length', sql`${length} >= ${sqlLiteral(c.minLength)}`);
  if (c.maxLength !== undefined) named('max_length', sql`${length} <= ${sqlLiteral(c.maxLength)}`);
  // No CHECK for `pattern`: PostgreSQL's regex engine backtracks (on backreferences, for one) and reads
  // a different dialect; user patterns run only on the linear-time engine, in the app, on every write.
  if (c.enum !== undefined)
    named(
      'enum',
      sql`${col} in (${sql.join(
        c.enum.map((v) => typedLiteral(field, v)),
        sql`, `,
      )})`,
    );
  if (field.type === 'yearmonth') named('yearmonth', sql`${col} ~ ${sqlLiteral('^\\d{4}-(0[1-9]|1[0-2])$')}`);
  if (field.type === 'year') named('year', sql`${col} between 0 and 9999`);
  return checks;
}

function checksOf(table: string, field: FieldDescriptor): SQL[] {
  return fieldChecks(table, field).map((check) => sql`constraint ${ident(check.name)} ${check.clause}`);
}

/** A column definition (name, type, generation or default, NOT NULL) for CREATE or ADD COLUMN. */
export function columnOf(field: FieldDescriptor, isKey: boolean): SQL {
  const type = columnType(field);
  const parts: SQL[] = [ident(field.name), sql.raw(type)];
  if (field.generated === 'identity') parts.push(sql`generated by default as identity`);
  else if (field.generated === 'uuid') parts.push(type === 'uuid' ? sql`default gen_random_uuid()` : sql`default gen_random_uuid()::text`);
  else if (field.default !== undefined) parts.push(sql`default ${typedLiteral(field, field.default)}`);
  if (isKey || field.constraints.required === true) parts.push(sql`not null`);
  return sql.join(parts, sql` `);
}

export function searchExpression(table: TableDescriptor): SQL {
  const sources = table.search!.sourceFields;
  const text = (name: string) =>
    table.provider === 'jsonb' && !table.primaryKey.includes(name)
      ? sql`coalesce(${ident(JSONB_DATA_COLUMN)} ->> ${sqlLiteral(name)}, '')`
      : sql`coalesce(${ident(name)}::text, '')`;
  const joined = sources.length === 0 ? sql`''` : sql.join(sources.map(text), sql` || ' ' || `);
  return sql`to_tsvector(${sqlLiteral(SEARCH_CONFIGURATION)}::regconfig, ${joined})`;
}

/** The SQL of a field inside an index or predicate: its column, or its member of `data` on jsonb. */
function fieldRef(table: TableDescriptor, name: string, forValue?: PredicateLiteral): SQL {
  if (table.provider === 'flat_table' || table.primaryKey.includes(name)) return ident(name);
  const field = table.fields.find((f) => f.name === name)!;
  if (typeof forValue === 'number' || (forValue === undefined && ['integer', 'number', 'year'].includes(field.type))) {
    return sql`((${ident(JSONB_DATA_COLUMN)} ->> ${sqlLiteral(name)})::numeric)`;
  }
  if (typeof forValue === 'boolean' || (forValue === undefined && field.type === 'boolean')) {
    return sql`((${ident(JSONB_DATA_COLUMN)} ->> ${sqlLiteral(name)})::boolean)`;
  }
  if (['object', 'array', 'geojson', 'geopoint', 'any'].includes(field.type) && forValue === undefined) {
    return sql`(${ident(JSONB_DATA_COLUMN)} -> ${sqlLiteral(name)})`;
  }
  return sql`(${ident(JSONB_DATA_COLUMN)} ->> ${sqlLiteral(name)})`;
}

export function indexStatement(
  table: TableDescriptor,
  qualified: SQL,
  spec: IndexSpec,
  position: number,
): { statement: SQL; name: string } {
  const name = constraintName(table.tableName, spec.name ?? `${spec.fields.join('_')}_${position}_idx`);
  const columns = sql.join(
    spec.fields.map((f) => fieldRef(table, f)),
    sql`, `,
  );
  const where = spec.where === undefined ? sql`` : sql` where ${renderPredicate(spec.where, (f, v) => fieldRef(table, f, v))}`;
  return {
    name,
    statement: sql`create ${sql.raw(spec.unique ? 'unique ' : '')}index ${ident(name)} on ${qualified} using ${sql.raw(spec.method)} (${columns})${where}`,
  };
}

/** The plan of a CREATE_TABLE operation; `referencedTables` maps FK resources to physical names. */
export function createTablePlan(compiled: CompiledTable, referencedTables: ReadonlyMap<string, string>): DdlPlan {
  const table = compiled.descriptor;
  const schema = ident(table.schemaName);
  const qualified = sql`${schema}.${ident(table.tableName)}`;
  const keyFields = table.fields.filter((f) => table.primaryKey.includes(f.name));
  const columnFields = table.provider === 'flat_table' ? table.fields : keyFields;
  const elements: SQL[] = columnFields.map((f) => columnOf(f, table.primaryKey.includes(f.name)));
  if (table.provider === 'jsonb') elements.push(sql`${ident(JSONB_DATA_COLUMN)} jsonb not null default '{}'::jsonb`);
  if (table.search !== undefined)
    elements.push(sql`${ident(SEARCH_VECTOR_FIELD)} tsvector generated always as (${searchExpression(table)}) stored`);
  elements.push(
    sql`constraint ${ident(constraintName(table.tableName, 'pkey'))} primary key (${sql.join(table.primaryKey.map(ident), sql`, `)})`,
  );
  const indexes: { statement: SQL; name: string }[] = [];
  if (table.provider === 'flat_table') {
    for (const field of table.fields) {
      if (field.constraints.unique === true && !(table.primaryKey.length === 1 && table.primaryKey[0] === field.name)) {
        elements.push(sql`constraint ${ident(constraintName(table.tableName, `${field.name}_key`))} unique (${ident(field.name)})`);
      }
      elements.push(...checksOf(table.tableName, field));
    }
    for (const fk of compiled.foreignKeys) {
      const constraint = foreignKeyConstraint(table, fk, referencedTables.get(fk.reference.resource) ?? table.tableName);
      elements.push(sql`constraint ${ident(constraint.name)} ${constraint.clause}`);
    }
  } else {
    // jsonb: a foreign key on key columns is a constraint like a flat table's (table-schema.ts refuses
    // one on data members, which no constraint can reach).
    for (const fk of compiled.foreignKeys.filter((key) => key.fields.every((name) => table.primaryKey.includes(name)))) {
      const constraint = foreignKeyConstraint(table, fk, referencedTables.get(fk.reference.resource) ?? table.tableName);
      elements.push(sql`constraint ${ident(constraint.name)} ${constraint.clause}`);
    }
    // jsonb: uniqueness of data members by unique expression indexes; the rest is checked on write.
    table.fields
      .filter((f) => f.constraints.unique === true && !table.primaryKey.includes(f.name))
      .forEach((f) => {
        const name = constraintName(table.tableName, `${f.name}_key`);
        indexes.push({ name, statement: sql`create unique index ${ident(name)} on ${qualified} ((${fieldRef(table, f.name)}))` });
      });
  }
  compiled.indexes.forEach((spec, position) => {
    const built = indexStatement(table, qualified, spec, position + 1);
    // Expression columns need their own parentheses inside the column list.
    if (table.provider === 'jsonb') {
      const columns = sql.join(
        spec.fields.map((f) => sql`(${fieldRef(table, f)})`),
        sql`, `,
      );
      const where = spec.where === undefined ? sql`` : sql` where ${renderPredicate(spec.where, (f, v) => fieldRef(table, f, v))}`;
      built.statement = sql`create ${sql.raw(spec.unique ? 'unique ' : '')}index ${ident(built.name)} on ${qualified} using ${sql.raw(spec.method)} (${columns})${where}`;
    }
    indexes.push(built);
  });
  if (table.search !== undefined) {
    const name = constraintName(table.tableName, `${SEARCH_VECTOR_FIELD}_idx`);
    indexes.push({ name, statement: sql`create index ${ident(name)} on ${qualified} using gin (${ident(SEARCH_VECTOR_FIELD)})` });
  }
  const statements = [sql`create table ${qualified} (${sql.join(elements, sql`, `)})`, ...indexes.map((i) => i.statement)];
  const edges = compiled.hierarchy === undefined ? undefined : edgesTableStatements(table);
  if (edges !== undefined) statements.push(...edges.statements);
  const texts = statements.map((statement) => {
    const query = dialect.sqlToQuery(statement);
    if (query.params.length > 0) throw new Error('DDL must not carry parameters');
    return query.sql;
  });
  return {
    statements,
    texts,
    rollbackSql: [
      ...(edges === undefined ? [] : [dialect.sqlToQuery(edges.drop).sql]),
      dialect.sqlToQuery(sql`drop table ${qualified}`).sql,
    ].join(';\n'),
    operations: [
      {
        op: 'create_table',
        table: table.tableName,
        provider: table.provider,
        columns: [
          ...columnFields.map((f) => ({ name: f.name, type: columnType(f) })),
          ...(table.provider === 'jsonb' ? [{ name: JSONB_DATA_COLUMN, type: 'jsonb' }] : []),
          ...(table.search ? [{ name: SEARCH_VECTOR_FIELD, type: 'tsvector' }] : []),
        ],
        primary_key: table.primaryKey,
      },
      ...indexes.map((i) => ({ op: 'create_index', table: table.tableName, index: i.name })),
      ...(edges === undefined ? [] : [{ op: 'create_edges_table', table: edges.name, nodes: table.tableName }]),
    ],
  };
}

/**
 * The companion edges table of a hierarchy: both ends reference the node table's key (an edge goes
 * with either of its records), one edge per (from, to, type), no edge from a record to itself, and
 * indexes for walking either way.
 */
export function edgesTableStatements(table: TableDescriptor): { name: string; statements: SQL[]; drop: SQL } {
  const name = edgesTableName(table.tableName);
  const edges = sql`${ident(table.schemaName)}.${ident(name)}`;
  const nodes = sql`${ident(table.schemaName)}.${ident(table.tableName)}`;
  const key = table.fields.find((f) => f.name === table.primaryKey[0])!;
  const keyType = sql.raw(columnType(key));
  const pk = ident(key.name);
  return {
    name,
    statements: [
      sql`create table ${edges} (
        id bigint generated by default as identity constraint ${ident(constraintName(name, 'pkey'))} primary key,
        from_id ${keyType} not null constraint ${ident(constraintName(name, 'from_fkey'))} references ${nodes} (${pk}) on delete cascade,
        to_id ${keyType} not null constraint ${ident(constraintName(name, 'to_fkey'))} references ${nodes} (${pk}) on delete cascade,
        type text not null,
        metadata jsonb not null default '{}'::jsonb,
        created_at timestamptz not null default now(),
        constraint ${ident(constraintName(name, 'unique'))} unique (from_id, type, to_id),
        constraint ${ident(constraintName(name, 'not_self'))} check (from_id <> to_id))`,
      sql`create index ${ident(constraintName(name, 'to_idx'))} on ${edges} (to_id, type, from_id)`,
    ],
    drop: sql`drop table if exists ${edges}`,
  };
}

/** The text of a DDL statement, which never carries parameters. */
export function ddlText(statement: SQL): string {
  const query = dialect.sqlToQuery(statement);
  if (query.params.length > 0) throw new Error('DDL must not carry parameters');
  return query.sql;
}

/** The name and clause of a foreign key constraint, `referencedTable` being the physical target. */
export function foreignKeyConstraint(table: TableDescriptor, fk: ForeignKeySpec, referencedTable: string): NamedCheck {
  return {
    name: constraintName(table.tableName, `${fk.fields.join('_')}_fkey`),
    clause: sql`foreign key (${sql.join(fk.fields.map(ident), sql`, `)}) references ${ident(table.schemaName)}.${ident(referencedTable)} (${sql.join(fk.reference.fields.map(ident), sql`, `)}) on delete ${sql.raw(fk.onDelete)}`,
  };
}

export function dropTableStatement(table: { schemaName: string; tableName: string }, options: { ifExists?: boolean } = {}): SQL {
  return sql`drop table ${sql.raw(options.ifExists === true ? 'if exists ' : '')}${ident(table.schemaName)}.${ident(table.tableName)}`;
}
