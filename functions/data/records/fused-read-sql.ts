// The statement of a fused record read (fused-reads.ts): the read's value, guarded by the table row
// it was compiled for, so a read made from a stale guess answers null instead of rows of another shape.
// A read of one record by its key is made once per remembered row and read shape, as a template that
// each request fills in with its key: on a cheap read, building and rendering the statement anew
// was about a tenth of the process's CPU time.
import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from '#shared/db/sql.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import { filledTemplate, templateOf, type StatementTemplate } from '#shared/db/render-sql.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

/** The table row a read was compiled for, as remembered. */
export interface RememberedTableRow {
  schemaName: string;
  tableId: number;
  schemaHash: string;
  appSlug: string;
  name: string;
  /**
   * For a read compiled from the relations among the app's tables: `appTablesFingerprint` of them
   * as remembered, so a change to any of them (not only this one) makes the guess stale.
   */
  appTables?: string;
}

/** The fingerprint of an app's table rows that relations are compiled from, as the guard computes it. */
export function appTablesFingerprint(
  rows: ReadonlyArray<{
    id: number;
    name: string;
    physical_table_name: string;
    schema_hash: string;
    is_materialized: boolean;
    is_active: boolean;
  }>,
): string {
  return rows
    .filter((row) => row.is_materialized && row.is_active)
    .sort((a, b) => a.id - b.id)
    .map((row) => `${row.id}:${row.name}:${row.physical_table_name}:${row.schema_hash}`)
    .join(',');
}

function appTablesGuard(table: RememberedTableRow): SQL {
  if (table.appTables === undefined) return sql``;
  return sql`and (select coalesce(string_agg(o.id::text || ':' || o.name || ':' || o.physical_table_name || ':' || o.schema_hash, ',' order by o.id), '')
      from ${tenantTable(table, 'datatables')} o where o.app_id = a.id and o.is_materialized and o.is_active) = ${table.appTables}`;
}

type GuardedRead = { answer: SQL } | { statement: SQL; columns: readonly string[] };

/**
 * The read's value when the remembered table row still holds, else null: for rows, one JSON text of
 * column-wise arrays (`[[records], [totals]]`, cheaper for PostgreSQL to build than an object per
 * row); for an answer, its text ('' when it has none). The guard is two lookups by key, not a join:
 * a list whose plan PostgreSQL makes anew on every run (a range filter) plans the guard each time
 * too, and the join cost 0.14 ms of planning where the lookups cost 0.04.
 */
export function guardedReadSql(table: RememberedTableRow, read: GuardedRead): SQL {
  const value =
    'answer' in read
      ? sql`coalesce((${read.answer}), '')`
      : sql`(select json_build_array(${sql.join(
          read.columns.map((column) => sql`json_agg(q.${sql.identifier(column)})`),
          sql`, `,
        )})::text from (${read.statement}) q)`;
  return sql`case when (
      select t.schema_hash = ${table.schemaHash} and t.is_materialized and t.name = ${table.name}
        and (select a.deleted_at is null and a.slug = ${table.appSlug} ${appTablesGuard(table)}
          from ${tenantTable(table, 'apps')} a where a.id = t.app_id)
      from ${tenantTable(table, 'datatables')} t where t.id = ${table.tableId})
    then ${value} end`;
}

/**
 * Where a record's key goes in a template: no request's key can be this text (PostgreSQL text holds
 * no NUL, and the rest is this process's own secret).
 */
const KEY_STAND_IN = `\u0000${randomUUID()}`;
/**
 * Templates made, by remembered table row and read shape; null where one cannot be made. Bounded as a
 * whole (a caller may send any number of query strings): at about 3 KB of text each, a few MB.
 */
const TEMPLATE_LIMIT = 1_000;
const templates = new BoundedMap<string, StatementTemplate | null>(TEMPLATE_LIMIT);
const dialect = new PgDialect();

/** A number per remembered row object, so a row remembered anew never meets its predecessor's templates. */
const rememberedIds = new WeakMap<object, number>();
let nextRememberedId = 0;

function rememberedId(remembered: object): number {
  let id = rememberedIds.get(remembered);
  if (id === undefined) {
    id = nextRememberedId;
    nextRememberedId += 1;
    rememberedIds.set(remembered, id);
  }
  return id;
}

/**
 * `guardedReadSql` of a read of one record by `key` (its text as bound, parsed already), made once
 * per remembered table row and `shape` (what else the read depends on, such as its query string) and
 * then filled in with each request's key (render-sql.ts's templates): nothing of it is built or
 * rendered again. `remembered` is the object the row was remembered as; a new one starts over.
 */
export function guardedReadByKeySql(
  remembered: object,
  table: RememberedTableRow,
  shape: string,
  key: string,
  read: (key: string) => GuardedRead,
): SQL {
  const build = (value: string) => guardedReadSql(table, read(value));
  const templateKey = `${rememberedId(remembered)}\n${shape}`;
  let template = templates.get(templateKey);
  if (template === undefined) {
    template = templateOf(build(KEY_STAND_IN), KEY_STAND_IN, dialect) ?? null;
    templates.set(templateKey, template);
  }
  return template === null ? build(key) : filledTemplate(template, key, build);
}
