// The migration planner: the difference between a materialized table's Table Schema and a new one,
// as typed steps, each with its statements, the statements that undo it, its class and whether it
// may run without `allow_data_loss`. Column, constraint and index SQL comes from ddl.ts, so a
// migrated table has exactly the objects materializing the new schema would have made.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { constraintName, foreignKeyIndexSuffix } from '../constraint-names.ts';
import {
  columnOf,
  columnType,
  ddlText,
  fieldChecks,
  foreignKeyConstraint,
  foreignKeyIndexes,
  indexStatement,
  typedLiteral,
} from '../ddl.ts';
import { identifier as ident } from '#shared/db/sql-identifiers.ts';
import { SEARCH_VECTOR_FIELD, type FieldDescriptor, type TableDescriptor } from '../table-descriptor.ts';
import { canonicalJson, type CompiledTable, type IndexSpec } from '../table-schema.ts';
import { mapFields } from './field-mapping.ts';
import { planJsonbMigration } from './migration-plan-jsonb.ts';
import { tombstoneName, WIDENINGS, type PlanInput, type PlannedStep, type Preflight } from './migration-steps.ts';
import { searchVectorSteps } from './search-vector-steps.ts';

function sameDefault(a: FieldDescriptor, b: FieldDescriptor): boolean {
  return canonicalJson(a.default ?? null) === canonicalJson(b.default ?? null);
}

export function planMigration(input: PlanInput): PlannedStep[] {
  const before = input.before.descriptor;
  const after = input.after.descriptor;
  const mapping = mapFields(before, after, input.afterSchema);
  if (after.provider === 'jsonb') return planJsonbMigration(input, mapping);
  const { origin, renamed, newNameOf, retyped, added, dropped } = mapping;
  const newByName = new Map(after.fields.map((f) => [f.name, f]));
  const table = sql`${ident(after.schemaName)}.${ident(after.tableName)}`;
  const alter = (rest: SQL) => ddlText(sql`alter table ${table} ${rest}`);

  // Constraints and indexes, keyed by their name in the new column names and compared by their full
  // text there; `physical` and `original` are the name and clause the object has before the plan.
  type Named = { name: string; text: string; columns: string[]; clause: SQL; physical: string; original: SQL };
  const asNew = (f: FieldDescriptor): FieldDescriptor => ({ ...f, name: newNameOf(f.name) ?? `${f.name}__dropped` });
  const renameField = (n: string) => newNameOf(n) ?? `${n}__dropped`;
  const constraintsOf = (desc: TableDescriptor, fields: FieldDescriptor[], rename: (f: FieldDescriptor) => FieldDescriptor) => {
    const map = new Map<string, Named>();
    for (const field of fields) {
      const f = rename(field);
      const now = fieldChecks(desc.tableName, field);
      for (const [i, check] of fieldChecks(desc.tableName, f).entries()) {
        map.set(check.name, {
          name: check.name,
          text: ddlText(check.clause),
          columns: [f.name],
          clause: check.clause,
          physical: now[i]!.name,
          original: now[i]!.clause,
        });
      }
      if (f.constraints.unique === true && !(desc.primaryKey.length === 1 && desc.primaryKey[0] === field.name)) {
        const name = constraintName(desc.tableName, `${f.name}_key`);
        map.set(name, {
          name,
          text: `unique ${f.name}`,
          columns: [f.name],
          clause: sql`unique (${ident(f.name)})`,
          physical: constraintName(desc.tableName, `${field.name}_key`),
          original: sql`unique (${ident(field.name)})`,
        });
      }
    }
    return map;
  };
  const oldChecks = constraintsOf(before, before.fields, asNew);
  const newChecks = constraintsOf(after, after.fields, (f) => f);

  const fks = (compiled: CompiledTable, rename: (name: string) => string) => {
    const map = new Map<string, Named>();
    for (const fk of compiled.foreignKeys) {
      const target = input.referencedTables.get(fk.reference.resource) ?? after.tableName;
      const built = foreignKeyConstraint(after, { ...fk, fields: fk.fields.map(rename) }, target);
      const now = foreignKeyConstraint(after, fk, target);
      map.set(built.name, {
        name: built.name,
        text: ddlText(built.clause),
        columns: fk.fields.map(rename),
        clause: built.clause,
        physical: now.name,
        original: now.clause,
      });
    }
    return map;
  };
  const oldFks = fks(input.before, renameField);
  const newFks = fks(input.after, (n) => n);

  // The declared indexes and those made for foreign keys (ddl.ts `foreignKeyIndexes`), as materialize
  // makes them; a foreign key's index is named from its columns, so a renamed column renames it.
  const indexSpecs = (compiled: CompiledTable): { spec: IndexSpec; position: number; forKey: boolean }[] => [
    ...compiled.indexes.map((spec, position) => ({ spec, position: position + 1, forKey: false })),
    ...foreignKeyIndexes(compiled).map((spec) => ({ spec, position: 0, forKey: true })),
  ];
  const indexes = (desc: TableDescriptor, compiled: CompiledTable, rename: (f: string) => string) => {
    const map = new Map<string, Named>();
    indexSpecs(compiled).forEach(({ spec, position, forKey }) => {
      const columns = spec.fields.map(rename);
      const built = indexStatement(
        { ...desc, fields: desc.fields.map((f) => ({ ...f, name: rename(f.name) })) },
        table,
        { ...spec, fields: columns, ...(forKey ? { name: foreignKeyIndexSuffix(columns) } : {}) },
        position,
      );
      const now = indexStatement(desc, table, spec, position);
      map.set(built.name, {
        name: built.name,
        text: ddlText(built.statement),
        columns,
        clause: built.statement,
        physical: now.name,
        original: now.statement,
      });
    });
    return map;
  };
  const oldIndexes = indexes(before, input.before, renameField);
  const newIndexes = indexes(after, input.after, (n) => n);
  // Every index name the table has or gets besides the declared indexes: old indexes, the indexes of
  // unique and primary key constraints, the search vector's.
  const uniqueNames = [...oldChecks.values(), ...newChecks.values()]
    .filter((c) => c.text.startsWith('unique'))
    .flatMap((c) => [c.name, c.physical]);
  const reservedIndexNames = new Set([
    ...[...oldIndexes.values()].map((i) => i.physical),
    ...uniqueNames,
    constraintName(after.tableName, 'pkey'),
    constraintName(after.tableName, `${SEARCH_VECTOR_FIELD}_idx`),
  ]);
  const touchesRetyped = (named: Named) => named.columns.some((c) => retyped.has(c));
  const unchanged = (old: Named, now: Named | undefined) => now !== undefined && now.text === old.text && !touchesRetyped(old);

  /** The column's values converted from `source` to `target` (NULL where a value does not convert). */
  const converted = (column: string, source: string, target: string): SQL => {
    const col = ident(column);
    if (source === target) return col;
    if (target === 'jsonb') return sql`to_jsonb(${col})`;
    if (source === 'jsonb')
      return target === 'text'
        ? sql`${col} #>> '{}'`
        : sql`case when ${input.castable(sql`${col} #>> '{}'`, target)} then (${col} #>> '{}')::${sql.raw(target)} end`;
    return WIDENINGS[source]?.includes(target)
      ? sql`${col}::${sql.raw(target)}`
      : sql`case when ${input.castable(sql`${col}::text`, target)} then ${col}::text::${sql.raw(target)} end`;
  };
  const duplicates = (column: string): Preflight => {
    const col = ident(column);
    return {
      predicate: ddlText(sql`${col} in (select ${col} from ${table} where ${col} is not null group by ${col} having count(*) > 1)`),
      describes: 'rows sharing a value',
      blocking: true,
    };
  };
  const steps: PlannedStep[] = [];
  const step = (s: Omit<PlannedStep, 'phase'> & { phase?: PlannedStep['phase'] }) => steps.push({ phase: 'transaction', ...s });

  // 1. Indexes, foreign keys and constraints that go away or change, before their columns change.
  for (const [name, index] of oldIndexes) {
    if (unchanged(index, newIndexes.get(name))) continue;
    step({
      type: 'drop_index',
      column: index.columns.join(','),
      object: index.physical,
      class: 'instant',
      is_safe: true,
      sql: [ddlText(sql`drop index ${ident(after.schemaName)}.${ident(index.physical)}`)],
      rollback_sql: [ddlText(index.original)],
    });
  }
  for (const [name, fk] of oldFks) {
    if (unchanged(fk, newFks.get(name))) continue;
    step({
      type: 'drop_foreign_key',
      column: fk.columns.join(','),
      object: fk.physical,
      class: 'instant',
      is_safe: true,
      sql: [alter(sql`drop constraint ${ident(fk.physical)}`)],
      rollback_sql: [alter(sql`add constraint ${ident(fk.physical)} ${fk.original}`)],
    });
  }
  for (const [name, check] of oldChecks) {
    if (unchanged(check, newChecks.get(name))) continue;
    step({
      type: check.text.startsWith('unique') ? 'drop_unique' : 'drop_check',
      column: check.columns[0]!,
      object: check.physical,
      class: 'instant',
      is_safe: true,
      sql: [alter(sql`drop constraint ${ident(check.physical)}`)],
      rollback_sql: [alter(sql`add constraint ${ident(check.physical)} ${check.original}`)],
    });
  }
  const searchChanges =
    canonicalJson(before.search?.sourceFields.map(newNameOf) ?? null) !== canonicalJson(after.search?.sourceFields ?? null) ||
    (after.search?.sourceFields.some((f) => retyped.has(f)) ?? false);
  const search = searchVectorSteps(before, after, searchChanges);
  if (search.drop !== undefined) step(search.drop);

  // 2. Renames (their constraints and indexes follow the column), drops, additions.
  const renamedTo = new Set(renamed.values());
  for (const [from, to] of renamed) {
    const renameConstraints: string[] = [];
    const backConstraints: string[] = [];
    for (const [name, check] of oldChecks) {
      if (check.columns[0] !== to || check.physical === name || !unchanged(check, newChecks.get(name))) continue;
      renameConstraints.push(alter(sql`rename constraint ${ident(check.physical)} to ${ident(name)}`));
      backConstraints.push(alter(sql`rename constraint ${ident(name)} to ${ident(check.physical)}`));
    }
    // A foreign key, and an index kept as it is but named from its columns (a foreign key's, an
    // unnamed declared one), take their new names, or a later plan would drop or rebuild them under a
    // name they do not have; each renamed once, in the step of its first renamed column.
    for (const [name, fk] of oldFks) {
      if (fk.physical === name || !unchanged(fk, newFks.get(name))) continue;
      if (fk.columns.find((c) => renamedTo.has(c)) !== to) continue;
      renameConstraints.push(alter(sql`rename constraint ${ident(fk.physical)} to ${ident(name)}`));
      backConstraints.push(alter(sql`rename constraint ${ident(name)} to ${ident(fk.physical)}`));
    }
    for (const [name, index] of oldIndexes) {
      if (index.physical === name || !unchanged(index, newIndexes.get(name))) continue;
      if (index.columns.find((c) => renamedTo.has(c)) !== to) continue;
      const renameIndex = (a: string, b: string) => ddlText(sql`alter index ${ident(after.schemaName)}.${ident(a)} rename to ${ident(b)}`);
      renameConstraints.push(renameIndex(index.physical, name));
      backConstraints.push(renameIndex(name, index.physical));
    }
    step({
      type: 'rename_column',
      column: to,
      object: from,
      class: 'instant',
      is_safe: true,
      sql: [alter(sql`rename column ${ident(from)} to ${ident(to)}`), ...renameConstraints],
      rollback_sql: [...backConstraints, alter(sql`rename column ${ident(to)} to ${ident(from)}`)],
    });
  }
  for (const field of dropped) {
    // The column is hidden under a tombstone name rather than dropped: a rollback within the
    // retention window brings its data back; the sweep drops it after the window.
    const tomb = ident(tombstoneName(input.baseHash, field.name));
    const col = ident(field.name);
    const required = field.constraints.required === true;
    const hasDefault = field.default !== undefined;
    const restored: FieldDescriptor = { ...field, constraints: { ...field.constraints, required: false } };
    step({
      type: 'drop_column',
      column: field.name,
      object: tombstoneName(input.baseHash, field.name),
      class: 'destructive',
      is_safe: true,
      warning: `Column "${field.name}" will be dropped and its data will be lost once the retention window has passed.${mapping.hinted || added.length === 0 ? '' : ' To rename a column and keep its data, give the new field "x-rename-from".'}`,
      sql: [
        alter(sql`rename column ${col} to ${tomb}`),
        ...(required ? [alter(sql`alter column ${tomb} drop not null`)] : []),
        ...(hasDefault ? [alter(sql`alter column ${tomb} drop default`)] : []),
      ],
      rollback_sql: [
        ...(hasDefault ? [alter(sql`alter column ${tomb} set default ${typedLiteral(field, field.default)}`)] : []),
        ...(required ? [alter(sql`alter column ${tomb} set not null`)] : []),
        alter(sql`rename column ${tomb} to ${col}`),
      ],
      tombstone: {
        sweep_sql: [alter(sql`drop column if exists ${tomb}`)],
        rollback_after_sweep: [alter(sql`add column ${columnOf(restored, false)}`)],
      },
    });
  }
  for (const field of added) {
    const requiredWithoutDefault = field.constraints.required === true && field.default === undefined && field.generated === undefined;
    step({
      type: 'add_column',
      column: field.name,
      class: requiredWithoutDefault ? 'breaking' : 'instant',
      is_safe: !requiredWithoutDefault,
      ...(requiredWithoutDefault
        ? {
            warning: `Column "${field.name}" is required and has no default: existing rows would have no value.`,
            preflight: { predicate: 'true', describes: 'rows that would have no value', blocking: true },
          }
        : {}),
      sql: [alter(sql`add column ${columnOf(field, false)}`)],
      rollback_sql: [alter(sql`drop column ${ident(field.name)}`)],
    });
  }

  // 3. Changes of kept columns: type, nullability, default.
  for (const field of after.fields) {
    const old = origin.get(field.name);
    if (old === undefined) continue;
    const col = ident(field.name);
    const preCol = ident(old.name);
    const from = columnType(old);
    const to = columnType(field);
    if (from !== to) {
      const widening = WIDENINGS[from]?.includes(to) ?? false;
      const convert = (target: string, source: string): SQL => converted(field.name, source, target);
      const unconvertible = (target: string, source: string): Preflight | undefined =>
        WIDENINGS[source]?.includes(target) || target === 'jsonb' || (source === 'jsonb' && target === 'text')
          ? undefined
          : {
              predicate: ddlText(
                sql`${preCol} is not null and not ${input.castable(source === 'jsonb' ? sql`${preCol} #>> '{}'` : sql`${preCol}::text`, target)}`,
              ),
              describes: `values that do not convert to ${target}`,
              blocking: field.constraints.required === true,
            };
      const preflight = unconvertible(to, from);
      // The rollback's check runs after the plan, on the column under its new name and type.
      const rollbackPreflight = (() => {
        const found = unconvertible(from, to);
        if (found === undefined) return undefined;
        return {
          ...found,
          predicate: ddlText(
            sql`${col} is not null and not ${input.castable(to === 'jsonb' ? sql`${col} #>> '{}'` : sql`${col}::text`, from)}`,
          ),
        };
      })();
      step({
        type: 'alter_column_type',
        column: field.name,
        class: widening ? 'data-dependent' : 'breaking',
        is_safe: widening || preflight === undefined,
        ...(widening || preflight === undefined
          ? {}
          : { warning: `Changing "${field.name}" from ${from} to ${to}: values that do not convert become NULL.` }),
        ...(preflight ? { preflight } : {}),
        ...(rollbackPreflight ? { rollback_preflight: rollbackPreflight } : {}),
        sql: [alter(sql`alter column ${col} type ${sql.raw(to)} using ${convert(to, from)}`)],
        rollback_sql: [alter(sql`alter column ${col} type ${sql.raw(from)} using ${convert(from, to)}`)],
      });
    }
    const wasRequired = old.constraints.required === true || before.primaryKey.includes(old.name);
    const isRequired = field.constraints.required === true || after.primaryKey.includes(field.name);
    if (!sameDefault(old, field) && field.generated === undefined) {
      step(
        field.default === undefined
          ? {
              type: 'drop_default',
              column: field.name,
              class: 'instant',
              is_safe: true,
              sql: [alter(sql`alter column ${col} drop default`)],
              rollback_sql: [
                alter(sql`alter column ${col} set default ${typedLiteral({ ...field, type: old.type, format: old.format }, old.default)}`),
              ],
            }
          : {
              type: 'set_default',
              column: field.name,
              class: 'instant',
              is_safe: true,
              sql: [alter(sql`alter column ${col} set default ${typedLiteral(field, field.default)}`)],
              rollback_sql: [
                old.default === undefined
                  ? alter(sql`alter column ${col} drop default`)
                  : alter(sql`alter column ${col} set default ${typedLiteral(old, old.default)}`),
              ],
            },
      );
    }
    if (wasRequired && !isRequired) {
      step({
        type: 'drop_not_null',
        column: field.name,
        class: 'instant',
        is_safe: true,
        sql: [alter(sql`alter column ${col} drop not null`)],
        rollback_sql: [alter(sql`alter column ${col} set not null`)],
      });
    }
    if (!wasRequired && isRequired) {
      // The CHECK is added NOT VALID under the migration's lock and validated after it (no ACCESS
      // EXCLUSIVE during the scan); the validated CHECK lets SET NOT NULL skip its own scan, and it
      // goes once it has served.
      const checkName = constraintName(after.tableName, `${field.name}_not_null`);
      const check = ident(checkName);
      step({
        type: 'set_not_null',
        column: field.name,
        object: checkName,
        class: 'data-dependent',
        is_safe: true,
        preflight: { predicate: ddlText(sql`${preCol} is null`), describes: 'rows with no value', blocking: true },
        sql: [alter(sql`add constraint ${check} check (${col} is not null) not valid`)],
        validate_sql: [
          alter(sql`validate constraint ${check}`),
          alter(sql`alter column ${col} set not null`),
          alter(sql`drop constraint if exists ${check}`),
        ],
        rollback_sql: [alter(sql`drop constraint if exists ${check}`), alter(sql`alter column ${col} drop not null`)],
      });
    }
  }

  // 4. New constraints, foreign keys, the search vector and indexes.
  for (const [name, check] of newChecks) {
    const old = oldChecks.get(name);
    if (old !== undefined && unchanged(old, check)) continue;
    const pre = origin.get(check.columns[0]!);
    if (check.text.startsWith('unique')) {
      step({
        type: 'add_unique',
        column: check.columns[0]!,
        object: name,
        class: 'data-dependent',
        is_safe: true,
        ...(pre ? { preflight: duplicates(pre.name) } : {}),
        sql: [alter(sql`add constraint ${ident(name)} ${check.clause}`)],
        rollback_sql: [alter(sql`drop constraint ${ident(name)}`)],
      });
    } else {
      // The check over the stored column as it will be (renamed, converted), before the plan runs.
      const field = newByName.get(check.columns[0]!)!;
      const predicate =
        pre === undefined
          ? undefined
          : ddlText(
              sql`not coalesce((select ${sql.raw(ddlText(check.clause).replace(/^check /, ''))} from (select ${converted(pre.name, columnType(pre), columnType(field))} as ${ident(field.name)}) as v), true)`,
            );
      step({
        type: 'add_check',
        column: check.columns[0]!,
        object: name,
        class: 'online',
        is_safe: true,
        ...(predicate ? { preflight: { predicate, describes: `rows breaking ${name}`, blocking: true } } : {}),
        sql: [alter(sql`add constraint ${ident(name)} ${check.clause} not valid`)],
        validate_sql: [alter(sql`validate constraint ${ident(name)}`)],
        rollback_sql: [alter(sql`drop constraint ${ident(name)}`)],
      });
    }
  }
  for (const [name, fk] of newFks) {
    const old = oldFks.get(name);
    if (old !== undefined && unchanged(old, fk)) continue;
    const spec = input.after.foreignKeys.find(
      (candidate) => constraintName(after.tableName, `${candidate.fields.join('_')}_fkey`) === name,
    )!;
    const target = input.referencedTables.get(spec.reference.resource) ?? after.tableName;
    const preFields = spec.fields.map((f) => origin.get(f)?.name);
    const checkable = preFields.every((f) => f !== undefined);
    const missing = sql.join(
      preFields.map((f, i) => sql`r.${ident(spec.reference.fields[i]!)} = ${table}.${ident(f ?? '_')}`),
      sql` and `,
    );
    const present = sql.join(
      preFields.map((f) => sql`${ident(f ?? '_')} is not null`),
      sql` and `,
    );
    step({
      type: 'add_foreign_key',
      column: fk.columns.join(','),
      object: name,
      class: 'online',
      is_safe: true,
      ...(checkable
        ? {
            preflight: {
              predicate: ddlText(
                sql`${present} and not exists (select 1 from ${ident(after.schemaName)}.${ident(target)} r where ${missing})`,
              ),
              describes: 'rows referring to missing records',
              blocking: true,
            },
          }
        : {}),
      sql: [alter(sql`add constraint ${ident(name)} ${fk.clause} not valid`)],
      validate_sql: [alter(sql`validate constraint ${ident(name)}`)],
      rollback_sql: [alter(sql`drop constraint ${ident(name)}`)],
    });
  }
  if (search.add !== undefined) step(search.add);
  for (const [name, index] of newIndexes) {
    const old = oldIndexes.get(name);
    if (old !== undefined && unchanged(old, index)) continue;
    // CONCURRENTLY needs the columns as they are before the transaction and a name no index of the
    // table has or gets otherwise: a failed build is cleaned up by dropping the index of that name on
    // this table, which must never be one the table still needs. No IF NOT EXISTS: an index of the
    // name on another table must fail the build, not stand in for it.
    const concurrent = !reservedIndexNames.has(name) && index.columns.every((f) => origin.get(f)?.name === f && !retyped.has(f));
    const text = concurrent ? index.text.replace(/^create (unique )?index /, (m) => `${m}concurrently `) : index.text;
    const { spec } = indexSpecs(input.after).find(
      (candidate) => indexStatement(after, table, candidate.spec, candidate.position).name === name,
    )!;
    const pre = spec.unique && spec.where === undefined && spec.fields.length === 1 ? origin.get(spec.fields[0]!) : undefined;
    step({
      type: 'create_index',
      column: index.columns.join(','),
      object: name,
      class: concurrent ? 'online' : 'data-dependent',
      is_safe: true,
      phase: concurrent ? 'concurrent' : 'transaction',
      ...(pre ? { preflight: duplicates(pre.name) } : {}),
      sql: [text],
      rollback_sql: [ddlText(sql`drop index ${ident(after.schemaName)}.${ident(name)}`)],
    });
  }
  return steps;
}
