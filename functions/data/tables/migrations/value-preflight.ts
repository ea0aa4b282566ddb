// The preflight of the rules only the app checks. A `pattern`, a string or geopoint `format`, and the
// type among those stored as jsonb have no CHECK in the database (ddl.ts), so a schema change that
// adds or tightens one on a column with data is checked here: the column's values are read in batches and judged by the new field's own rules,
// as validate_data and writes judge them. Rows they refuse block the change, like the other
// preflights; otherwise the table would keep values it answers but refuses when written back.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { castValue } from '../field-types.ts';
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import { columnType } from '../ddl.ts';
import { patternProblem } from '../record-checks.ts';
import { JSONB_DATA_COLUMN, type FieldDescriptor, type TableDescriptor } from '../table-descriptor.ts';
import { keyExpression, PREFLIGHT_SAMPLE_SIZE, type PreflightResult } from './preflight.ts';

/** Rows read per statement: bounds the memory of a scan of a large table. */
const BATCH_ROWS = 5000;

export interface ValueCheck {
  /** The field's name in the new schema. */
  column: string;
  result: PreflightResult;
}

/** Whether the app-only rules of a continuing field changed in a way that needs its values judged. */
function appRulesChanged(before: FieldDescriptor, after: FieldDescriptor): boolean {
  // A new column type converts the values in the database; its own preflight covers the cast.
  if (columnType(before) !== columnType(after)) return false;
  const patternChanged =
    after.constraints.pattern !== undefined &&
    (after.constraints.pattern !== before.constraints.pattern || after.constraints.patternDialect !== before.constraints.patternDialect);
  const formatChanged = (after.format ?? 'default') !== (before.format ?? 'default');
  // Types that share a column (any, object, array, geojson and geopoint are all jsonb): nothing converts.
  const typeChanged = after.type !== before.type;
  return patternChanged || formatChanged || typeChanged;
}

function refuses(field: FieldDescriptor, value: unknown): boolean {
  const cast = castValue(field, value);
  if (!cast.ok) return true;
  return (
    field.constraints.pattern !== undefined &&
    typeof cast.value === 'string' &&
    patternProblem(field.constraints, field.constraints.pattern, cast.value) !== undefined
  );
}

/** Counts the values of `before`'s column that `after` refuses, with up to five primary keys. */
async function judgeColumn(
  db: Queryable,
  table: TableDescriptor,
  before: FieldDescriptor,
  after: FieldDescriptor,
): Promise<PreflightResult> {
  const qualified = sql`${ident(table.schemaName)}.${ident(table.tableName)}`;
  // A jsonb table keeps its non-key fields as members of `data`; a JSON null counts as no value.
  const inData = table.provider === 'jsonb' && !table.primaryKey.includes(before.name);
  const value = inData ? sql`(${ident(JSONB_DATA_COLUMN)} -> ${before.name}::text)` : sql`to_jsonb(${ident(before.name)})`;
  let violating = 0;
  const samples: unknown[] = [];
  // Pages by physical row position (a TID range scan): no sort, and no key type to page by.
  let last = '(0,0)';
  for (;;) {
    const rows = await db.rows<{ at: string; id: string; v: string }>(
      sql`select ctid::text as at, ${keyExpression(table)}::text as id, ${value}::text as v from ${qualified}
        where ctid > ${last}::tid and ${value} is not null and ${value} <> 'null'::jsonb order by ctid limit ${BATCH_ROWS}`,
    );
    for (const row of rows) {
      if (!refuses(after, JSON.parse(row.v))) continue;
      violating += 1;
      if (samples.length < PREFLIGHT_SAMPLE_SIZE) samples.push(JSON.parse(row.id));
    }
    if (rows.length < BATCH_ROWS) break;
    last = rows.at(-1)!.at;
  }
  const rules = [
    after.type !== before.type ? `the type ${after.type}` : undefined,
    after.constraints.pattern !== undefined ? `the pattern ${after.constraints.pattern}` : undefined,
    after.format !== undefined && after.format !== 'default' ? `the format ${after.format}` : undefined,
  ]
    .filter((rule) => rule !== undefined)
    .join(' and ');
  return { violating_rows: violating, sample_ids: samples, describes: `values that ${rules || 'the new field'} refuses`, blocking: true };
}

/**
 * The value checks of a plan from `before` to `after` (`origin`: the old field each new field
 * continues), for the fields whose pattern or format changed.
 */
export async function runValueChecks(
  db: Queryable,
  before: TableDescriptor,
  after: TableDescriptor,
  origin: ReadonlyMap<string, FieldDescriptor>,
): Promise<ValueCheck[]> {
  const checks: ValueCheck[] = [];
  for (const field of after.fields) {
    const old = origin.get(field.name);
    if (old === undefined || !appRulesChanged(old, field)) continue;
    checks.push({ column: field.name, result: await judgeColumn(db, before, old, field) });
  }
  return checks;
}
