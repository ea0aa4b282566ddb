// The migration planner of `jsonb` tables, whose key fields are columns and every other field a
// member of the `data` column. Renames, drops, defaults and type changes rewrite the members with
// UPDATEs (data-dependent steps); a dropped member moves to a hidden tombstone column for the
// retention window, so a rollback restores it. Constraints other than unique are checked on write
// (as at materialize), so their steps run no SQL but carry the same live preflight over the stored
// values as on flat tables; unique members and declared indexes are expression indexes. Foreign keys
// of jsonb tables are not enforced by the database (as at materialize), so changing them runs nothing.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { answeredValue } from '../../records/query/field-sql.ts';
import { constraintName } from '../constraint-names.ts';
import { columnType, ddlText, fieldChecks, indexStatement } from '../ddl.ts';
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import { sqlLiteral } from '../index-predicate-sql.ts';
import { JSONB_DATA_COLUMN, SEARCH_VECTOR_FIELD, type FieldDescriptor, type TableDescriptor } from '../table-descriptor.ts';
import { canonicalJson, type IndexSpec } from '../table-schema.ts';
import type { FieldMapping } from './field-mapping.ts';
import { searchVectorSteps } from './search-vector-steps.ts';
import { tombstoneName, WIDENINGS, type PlanInput, type PlannedStep, type Preflight } from './migration-steps.ts';

export function planJsonbMigration(input: PlanInput, mapping: FieldMapping): PlannedStep[] {
  const before = input.before.descriptor;
  const after = input.after.descriptor;
  const { origin, renamed, newNameOf, retyped, added, dropped } = mapping;
  const table = sql`${ident(after.schemaName)}.${ident(after.tableName)}`;
  const data = ident(JSONB_DATA_COLUMN);
  const alter = (rest: SQL) => ddlText(sql`alter table ${table} ${rest}`);
  const update = (set: SQL, where: SQL) => ddlText(sql`update ${table} set ${set} where ${where}`);
  const isKey = (name: string) => after.primaryKey.includes(name) || before.primaryKey.includes(name);
  const member = (name: string) => sql`(${data} -> ${sqlLiteral(name)})`;
  const path = (name: string) => sql`${sqlLiteral(`{${name}}`)}::text[]`;
  /** A field's stored value as text (a member's JSON string unquoted), and whether it holds one. */
  const storedText = (name: string) => (isKey(name) ? sql`${ident(name)}::text` : sql`(${data} ->> ${sqlLiteral(name)})`);
  const present = (name: string) =>
    isKey(name) ? sql`${ident(name)} is not null` : sql`${member(name)} is not null and ${member(name)} <> 'null'::jsonb`;
  /** The stored value of `name` typed as `field`'s column (NULL when it does not convert). */
  const typed = (name: string, field: FieldDescriptor): SQL => {
    const type = columnType(field);
    if (isKey(name)) return ident(name);
    if (type === 'jsonb') return member(name);
    if (type === 'text') return storedText(name);
    return sql`case when ${input.castable(storedText(name), type)} then ${storedText(name)}::${sql.raw(type)} end`;
  };
  /** The member's value converted to `to`, in the form records answer and writes store. */
  const converted = (name: string, to: FieldDescriptor): SQL =>
    columnType(to) === 'jsonb' ? member(name) : sql`to_jsonb(${answeredValue(to, typed(name, to))})`;
  const convertUpdate = (name: string, to: FieldDescriptor) =>
    update(sql`${data} = jsonb_set(${data}, ${path(name)}, coalesce(${converted(name, to)}, 'null'::jsonb))`, present(name));
  /** Rows whose stored `name` would not convert to `to`. */
  const unconvertible = (name: string, from: FieldDescriptor, to: FieldDescriptor, required: boolean): Preflight | undefined => {
    const [a, b] = [columnType(from), columnType(to)];
    if (WIDENINGS[a]?.includes(b) || b === 'jsonb' || b === 'text') return undefined;
    return {
      predicate: ddlText(sql`${present(name)} and not ${input.castable(storedText(name), b)}`),
      describes: `values that do not convert to ${b}`,
      blocking: required,
    };
  };
  /** Rows breaking a CHECK predicate written over `field`'s column, evaluated on the stored `name`. */
  const breaking = (name: string, field: FieldDescriptor, clause: SQL): string => {
    const predicate = ddlText(clause).replace(/^check /, '');
    return ddlText(
      sql`not coalesce((select ${sql.raw(predicate)} from (select ${typed(name, field)} as ${ident(field.name)}) as v), true)`,
    );
  };
  const duplicates = (name: string): Preflight => ({
    predicate: ddlText(
      sql`${storedText(name)} in (select ${storedText(name)} from ${table} where ${present(name)} group by 1 having count(*) > 1)`,
    ),
    describes: 'rows sharing a value',
    blocking: true,
  });

  const steps: PlannedStep[] = [];
  const step = (s: Omit<PlannedStep, 'phase'> & { phase?: PlannedStep['phase'] }) => steps.push({ phase: 'transaction', ...s });

  // Expression indexes (unique members and declared indexes), keyed by name, with their text over
  // each side's own names: a renamed or retyped member changes the expression, so its index is rebuilt.
  // `member`: the unique index of a field's `unique` constraint; `dedupes`: a unique index over one
  // field without a predicate, whose duplicates the preflight counts.
  type Index = { name: string; text: string; fields: string[]; member: boolean; dedupes: boolean };
  const indexesOf = (desc: TableDescriptor, specs: readonly IndexSpec[]) => {
    const map = new Map<string, Index>();
    const uniques = desc.fields.filter((f) => f.constraints.unique === true && !desc.primaryKey.includes(f.name));
    const all = [
      ...uniques.map((f) => ({
        spec: { name: `${f.name}_key`, fields: [f.name], unique: true, method: 'btree' } as IndexSpec,
        position: 0,
        member: true,
      })),
      ...specs.map((spec, i) => ({ spec, position: i + 1, member: false })),
    ];
    for (const { spec, position, member: isMember } of all) {
      const built = indexStatement(desc, table, spec, position);
      const dedupes = spec.unique && spec.where === undefined && spec.fields.length === 1;
      map.set(built.name, { name: built.name, text: ddlText(built.statement), fields: spec.fields, member: isMember, dedupes });
    }
    return map;
  };
  const oldIndexes = indexesOf(before, input.before.indexes);
  const newIndexes = indexesOf(after, input.after.indexes);
  const movedField = (f: string) => renamed.has(f) || retyped.has(newNameOf(f) ?? f);
  const keptIndex = (old: Index) => {
    const now = newIndexes.get(old.name);
    return now !== undefined && now.text === old.text && !old.fields.some(movedField);
  };
  const reserved = new Set([
    ...oldIndexes.keys(),
    constraintName(after.tableName, 'pkey'),
    constraintName(after.tableName, `${SEARCH_VECTOR_FIELD}_idx`),
  ]);

  // 1. Indexes whose expression goes or changes, and the search vector, before members move.
  for (const old of oldIndexes.values()) {
    if (keptIndex(old)) continue;
    step({
      type: old.member ? 'drop_unique' : 'drop_index',
      column: old.fields.join(','),
      object: old.name,
      class: 'instant',
      is_safe: true,
      sql: [ddlText(sql`drop index ${ident(after.schemaName)}.${ident(old.name)}`)],
      rollback_sql: [old.text],
    });
  }
  const searchSources = (desc: TableDescriptor) => desc.search?.sourceFields ?? null;
  const searchChanges =
    canonicalJson(searchSources(before)?.map((f) => newNameOf(f)) ?? null) !== canonicalJson(searchSources(after)) ||
    (before.search?.sourceFields.some(movedField) ?? false);
  const search = searchVectorSteps(before, after, searchChanges);
  if (search.drop !== undefined) step(search.drop);

  // 2. Renames, drops, additions.
  for (const [from, to] of renamed) {
    if (isKey(from)) {
      step({
        type: 'rename_column',
        column: to,
        object: from,
        class: 'instant',
        is_safe: true,
        sql: [alter(sql`rename column ${ident(from)} to ${ident(to)}`)],
        rollback_sql: [alter(sql`rename column ${ident(to)} to ${ident(from)}`)],
      });
      continue;
    }
    const move = (a: string, b: string) =>
      update(
        sql`${data} = (${data} - ${sqlLiteral(a)}) || jsonb_build_object(${sqlLiteral(b)}, ${member(a)})`,
        sql`${data} ? ${sqlLiteral(a)}`,
      );
    step({
      type: 'rename_column',
      column: to,
      object: from,
      class: 'data-dependent',
      is_safe: true,
      sql: [move(from, to)],
      rollback_sql: [move(to, from)],
    });
  }
  for (const field of dropped) {
    // The member moves to a hidden column: records never show it, a rollback within the retention
    // window puts it back, the sweep drops the column after the window.
    const tomb = ident(tombstoneName(input.baseHash, field.name));
    step({
      type: 'drop_column',
      column: field.name,
      object: tombstoneName(input.baseHash, field.name),
      class: 'destructive',
      is_safe: true,
      warning: `Field "${field.name}" will be dropped and its data will be lost once the retention window has passed.${mapping.hinted || added.length === 0 ? '' : ' To rename a field and keep its data, give the new field "x-rename-from".'}`,
      sql: [
        alter(sql`add column ${tomb} jsonb`),
        update(
          sql`${tomb} = ${member(field.name)}, ${data} = ${data} - ${sqlLiteral(field.name)}`,
          sql`${data} ? ${sqlLiteral(field.name)}`,
        ),
      ],
      rollback_sql: [
        update(sql`${data} = ${data} || jsonb_build_object(${sqlLiteral(field.name)}, ${tomb})`, sql`${tomb} is not null`),
        alter(sql`drop column ${tomb}`),
      ],
      tombstone: { sweep_sql: [alter(sql`drop column if exists ${tomb}`)], rollback_after_sweep: [] },
    });
  }
  for (const field of added) {
    const requiredWithoutDefault = field.constraints.required === true && field.default === undefined;
    const removeMember = update(sql`${data} = ${data} - ${sqlLiteral(field.name)}`, sql`${data} ? ${sqlLiteral(field.name)}`);
    step({
      type: 'add_column',
      column: field.name,
      class: requiredWithoutDefault ? 'breaking' : field.default === undefined ? 'instant' : 'data-dependent',
      is_safe: !requiredWithoutDefault,
      ...(requiredWithoutDefault
        ? {
            warning: `Field "${field.name}" is required and has no default: existing rows would have no value.`,
            preflight: { predicate: 'true', describes: 'rows that would have no value', blocking: true },
          }
        : {}),
      // Existing rows get the default, as an added column with a default gives them on a flat table.
      sql:
        field.default === undefined
          ? []
          : [
              update(
                sql`${data} = ${data} || jsonb_build_object(${sqlLiteral(field.name)}, ${sqlLiteral(JSON.stringify(field.default))}::jsonb)`,
                sql`not ${data} ? ${sqlLiteral(field.name)}`,
              ),
            ],
      rollback_sql: [removeMember],
    });
  }

  // 3. Kept members: type (rewritten), nullability and defaults (checked and applied on write).
  for (const field of after.fields) {
    const old = origin.get(field.name);
    if (old === undefined) continue;
    const name = field.name;
    if (retyped.has(name)) {
      const [from, to] = [columnType(old), columnType(field)];
      const widening = WIDENINGS[from]?.includes(to) ?? false;
      const preflight = unconvertible(old.name, old, field, field.constraints.required === true);
      const back = unconvertible(name, field, old, false);
      step({
        type: 'alter_column_type',
        column: name,
        class: widening ? 'data-dependent' : 'breaking',
        is_safe: widening || preflight === undefined,
        ...(widening || preflight === undefined
          ? {}
          : { warning: `Changing "${name}" from ${from} to ${to}: values that do not convert become null.` }),
        ...(preflight ? { preflight } : {}),
        ...(back ? { rollback_preflight: back } : {}),
        sql: [convertUpdate(name, field)],
        rollback_sql: [convertUpdate(name, old)],
      });
    }
    const wasRequired = old.constraints.required === true || before.primaryKey.includes(old.name);
    const isRequired = field.constraints.required === true || after.primaryKey.includes(name);
    if (!wasRequired && isRequired) {
      step({
        type: 'set_not_null',
        column: name,
        class: 'data-dependent',
        is_safe: true,
        sql: [],
        rollback_sql: [],
        preflight: { predicate: ddlText(sql`not (${present(old.name)})`), describes: 'rows with no value', blocking: true },
      });
    }
    if (wasRequired && !isRequired)
      step({ type: 'drop_not_null', column: name, class: 'instant', is_safe: true, sql: [], rollback_sql: [] });
    if (canonicalJson(old.default ?? null) !== canonicalJson(field.default ?? null)) {
      step({
        type: field.default === undefined ? 'drop_default' : 'set_default',
        column: name,
        class: 'instant',
        is_safe: true,
        sql: [],
        rollback_sql: [],
      });
    }
  }

  // 4. Value constraints that go (nothing to run: they were checked on write), new or changed ones
  // (preflight only), unique members and declared indexes, the search vector.
  for (const field of after.fields) {
    const old = origin.get(field.name);
    if (old === undefined) continue;
    const kept = new Set(fieldChecks(after.tableName, field).map((c) => ddlText(c.clause)));
    for (const check of fieldChecks(after.tableName, { ...old, name: field.name })) {
      if (kept.has(ddlText(check.clause)) && !retyped.has(field.name)) continue;
      step({ type: 'drop_check', column: field.name, object: check.name, class: 'instant', is_safe: true, sql: [], rollback_sql: [] });
    }
  }
  for (const field of after.fields) {
    const old = origin.get(field.name);
    const oldChecks = new Set(
      old === undefined ? [] : fieldChecks(after.tableName, { ...old, name: field.name }).map((c) => ddlText(c.clause)),
    );
    for (const check of fieldChecks(after.tableName, field)) {
      if (oldChecks.has(ddlText(check.clause)) && !retyped.has(field.name)) continue;
      step({
        type: 'add_check',
        column: field.name,
        object: check.name,
        class: 'instant',
        is_safe: true,
        sql: [],
        rollback_sql: [],
        ...(old
          ? { preflight: { predicate: breaking(old.name, field, check.clause), describes: `rows breaking ${check.name}`, blocking: true } }
          : {}),
      });
    }
  }
  if (search.add !== undefined) step(search.add);
  for (const index of newIndexes.values()) {
    const old = oldIndexes.get(index.name);
    if (old !== undefined && keptIndex(old)) continue;
    // CONCURRENTLY only over members that stay where they are, under a name no other index needs.
    const concurrent =
      !index.member && !reserved.has(index.name) && index.fields.every((f) => origin.get(f)?.name === f && !retyped.has(f));
    const pre = index.dedupes ? origin.get(index.fields[0]!) : undefined;
    step({
      type: index.member ? 'add_unique' : 'create_index',
      column: index.fields.join(','),
      object: index.name,
      class: concurrent ? 'online' : 'data-dependent',
      is_safe: true,
      phase: concurrent ? 'concurrent' : 'transaction',
      ...(pre ? { preflight: duplicates(pre.name) } : {}),
      sql: [concurrent ? index.text.replace(/^create (unique )?index /, (m) => `${m}concurrently `) : index.text],
      rollback_sql: [ddlText(sql`drop index ${ident(after.schemaName)}.${ident(index.name)}`)],
    });
  }
  return steps;
}
