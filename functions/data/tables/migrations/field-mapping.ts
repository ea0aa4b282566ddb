// Which stored field each field of a new Table Schema continues: itself, or the field its
// `x-rename-from` hint names. Both planners (flat_table and jsonb) start from it; it refuses what
// cannot be mapped one to one (a rename onto a name the table already has, two fields renamed from
// one) and primary key changes.
import { ValidationError } from '#shared/errors.ts';
import { columnType } from '../ddl.ts';
import type { FieldDescriptor, TableDescriptor } from '../table-descriptor.ts';
import { canonicalJson } from '../table-schema.ts';

export interface FieldMapping {
  /** The old field each kept or renamed new field continues, by new name. */
  origin: Map<string, FieldDescriptor>;
  /** Old name → new name, for renamed fields. */
  renamed: Map<string, string>;
  /** The new name of an old field, undefined when it is dropped. */
  newNameOf: (old: string) => string | undefined;
  /** New fields whose column type differs from their origin's. */
  retyped: Set<string>;
  added: FieldDescriptor[];
  dropped: FieldDescriptor[];
  /** Whether the new schema gives any rename hint (the drop warning suggests one otherwise). */
  hinted: boolean;
}

function refuse(message: string): never {
  throw ValidationError.forFields({ json_schema: [message] }, message);
}

function renameHints(schema: unknown): Map<string, string> {
  const hints = new Map<string, string>();
  const fields = (schema as { fields?: unknown }).fields;
  if (!Array.isArray(fields)) return hints;
  for (const field of fields as Record<string, unknown>[]) {
    const from = field['x-rename-from'];
    if (typeof field.name === 'string' && typeof from === 'string') hints.set(field.name, from);
  }
  return hints;
}

export function mapFields(before: TableDescriptor, after: TableDescriptor, afterSchema: unknown): FieldMapping {
  const oldByName = new Map(before.fields.map((f) => [f.name, f]));
  const newByName = new Map(after.fields.map((f) => [f.name, f]));
  const hints = renameHints(afterSchema);
  const origin = new Map<string, FieldDescriptor>();
  const renamed = new Map<string, string>();
  for (const field of after.fields) {
    const from = hints.get(field.name);
    if (from !== undefined && from !== field.name && oldByName.has(from) && !newByName.has(from)) {
      if (oldByName.has(field.name)) {
        refuse(
          `Field "${field.name}" cannot be renamed from "${from}": the table already has a field "${field.name}". Rename or drop that one in an earlier change.`,
        );
      }
      if (renamed.has(from))
        refuse(`Fields "${renamed.get(from)}" and "${field.name}" are both renamed from "${from}"; a field can be renamed once.`);
      origin.set(field.name, oldByName.get(from)!);
      renamed.set(from, field.name);
    } else if (oldByName.has(field.name)) {
      origin.set(field.name, oldByName.get(field.name)!);
    }
  }
  const newNameOf = (old: string) => renamed.get(old) ?? (newByName.has(old) ? old : undefined);
  if (canonicalJson(before.primaryKey.map(newNameOf)) !== canonicalJson(after.primaryKey)) {
    refuse('Changing the primary key of a materialized table is not supported.');
  }
  for (const key of after.primaryKey) {
    if (columnType(origin.get(key)!) !== columnType(newByName.get(key)!))
      refuse(`Changing the type of the primary key field "${key}" is not supported.`);
  }
  return {
    origin,
    renamed,
    newNameOf,
    retyped: new Set(
      after.fields.filter((f) => origin.has(f.name) && columnType(origin.get(f.name)!) !== columnType(f)).map((f) => f.name),
    ),
    added: after.fields.filter((f) => !origin.has(f.name)),
    dropped: before.fields.filter((f) => newNameOf(f.name) === undefined),
    hinted: hints.size > 0,
  };
}
