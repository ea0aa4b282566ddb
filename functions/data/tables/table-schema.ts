// Table Schema documents (`json_schema`): validation with the spec's messages, compilation to the
// TableDescriptor the record side reads, and the canonical hash. Every identifier that leaves here
// has passed the safe-identifier check.
import { compileHierarchy, type HierarchySpec } from './hierarchy-schema.ts';
import { foreignKeyIndexSuffix } from './constraint-names.ts';
import { createHash } from 'node:crypto';
import { isSafeIdentifier, MAX_IDENTIFIER_LENGTH } from '#shared/db/sql-identifiers.ts';
import { ValidationError } from '#shared/errors.ts';
import { patternEngine } from '#shared/text/pattern-engine.ts';
import type { PatternDialect } from '#shared/text/user-patterns.ts';
import { parsePredicate, PredicateError, type Predicate } from './index-predicate.ts';
import { castValue, compareKeys, orderKey, ORDERED_TYPES, uniqueKey } from './field-types.ts';
import { constraintProblems } from './record-checks.ts';
import { legacyTemporalText } from './temporal-values.ts';
import { GEOPOINT_FORMATS } from './value-formats.ts';
import {
  FIELD_TYPES,
  JSONB_DATA_COLUMN,
  SEARCH_VECTOR_FIELD,
  STRING_FORMATS,
  type FieldConstraints,
  type FieldDescriptor,
  type FieldType,
  type StorageProvider,
  type TableDescriptor,
} from './table-descriptor.ts';

export const ON_DELETE_ACTIONS = ['RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT', 'NO ACTION'] as const;
export type OnDeleteAction = (typeof ON_DELETE_ACTIONS)[number];
export const INDEX_METHODS = ['btree', 'hash', 'gin', 'gist', 'brin'] as const;
export type IndexMethod = (typeof INDEX_METHODS)[number];
/**
 * Field names a table cannot have, with the reason. PostgreSQL's system columns exist on every
 * table, so a column of that name cannot be created (42701 at materialize); `oid` was one until
 * PostgreSQL 12. `__proto__` cannot be a member of a JavaScript object that clients build.
 */
export const RESERVED_FIELD_NAMES: ReadonlyMap<string, string> = new Map([
  ...['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid', 'oid'].map((name): [string, string] => [
    name,
    'PostgreSQL uses it for a system column',
  ]),
  ['__proto__', 'JavaScript clients cannot hold a member of that name'],
]);
/** Added when a schema declares no primary key and has no `id` field (DECISIONS: string key → UUID). */
export const DEFAULT_KEY_FIELD = 'id';

export interface ForeignKeySpec {
  fields: string[];
  reference: { resource: string; fields: string[] };
  onDelete: OnDeleteAction;
}

export interface IndexSpec {
  name?: string;
  fields: string[];
  unique: boolean;
  method: IndexMethod;
  where?: Predicate;
}

/** Everything materialization needs: the descriptor plus the keys and indexes it does not carry. */
export interface CompiledTable {
  descriptor: TableDescriptor;
  foreignKeys: ForeignKeySpec[];
  indexes: IndexSpec[];
  /** Present when the schema says `hierarchy: true`: its edges live in a companion table. */
  hierarchy?: HierarchySpec;
}

export interface CompileTarget {
  schemaName: string;
  tableName: string;
  provider: StorageProvider;
  /** The name of this table in its app, so a foreign key may reference the table itself. */
  name?: string;
  /** The compiled descriptor of another table of the same app, or undefined when there is none. */
  resolveTable?: (name: string) => TableDescriptor | undefined;
  /**
   * The schema was saved earlier (a table being read, not saved): a pattern the linear-time engine
   * cannot run, accepted before that was the rule, is kept, so the table stays readable and writes
   * to that field are refused naming it, instead of the whole table answering 400.
   */
  storedSchema?: boolean;
  /**
   * Only the descriptor is wanted (another table's, for a foreign key that references it): that
   * table's own foreign keys are not resolved, so a target that references a third table resolves.
   */
  descriptorOnly?: boolean;
  /**
   * The dialect a stored schema's patterns are read in: `ecmascript` for one saved before Table
   * Schema patterns were XML Schema's (tenant migration 14). A schema being saved is always `xsd`.
   */
  patternDialect?: PatternDialect;
}

/** 400 `{json_schema: [messages]}`: the generic envelope carries the spec's member at its top level. */
export class TableSchemaError extends ValidationError {
  constructor(readonly problems: string[]) {
    super(problems[0] ?? 'Invalid table schema', { extras: { json_schema: problems } });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value.slice(0, 80)}"` : (JSON.stringify(value)?.slice(0, 80) ?? String(value));
}

/** JSON with object keys sorted at every level: equal documents hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function schemaHash(schema: unknown): string {
  return createHash('sha256').update(canonicalJson(schema)).digest('hex');
}

/** Types whose constraint values may also be written as strings that cast to the type (Table Schema). */
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A constraint value (`minimum`, `maximum`, an `enum` member) in the field's canonical form. The
 * standard lets it be the logical value or its string form; the string form is cast here once.
 */
function constraintValue(
  field: Pick<FieldDescriptor, 'type' | 'format'>,
  value: unknown,
  storedSchema = false,
): { ok: true; value: unknown } | { ok: false } {
  const strict = strictConstraintValue(field, value);
  if (strict.ok || !storedSchema || typeof value !== 'string') return strict;
  const legacy = legacyTemporalText(field.type, value);
  return legacy === undefined ? strict : strictConstraintValue(field, legacy);
}

function strictConstraintValue(
  field: Pick<FieldDescriptor, 'type' | 'format'>,
  value: unknown,
): { ok: true; value: unknown } | { ok: false } {
  let candidate = value;
  if (typeof value === 'string') {
    if (['number', 'integer', 'year'].includes(field.type) && NUMBER_TEXT.test(value.trim())) candidate = Number(value.trim());
    else if (field.type === 'boolean' && (value === 'true' || value === 'false')) candidate = value === 'true';
    else if (
      ['object', 'array', 'geojson'].includes(field.type) ||
      (field.type === 'geopoint' && field.format !== undefined && field.format !== 'default')
    ) {
      try {
        candidate = JSON.parse(value) as unknown;
      } catch {
        return { ok: false };
      }
    }
  }
  const cast = castValue(field, candidate);
  return cast.ok ? cast : { ok: false };
}

const CONSTRAINT_KEYS = 'required, unique, minimum, maximum, minLength, maxLength, pattern, enum';
const LENGTH_TYPES = new Set<FieldType>(['string', 'array', 'object']);

function compileConstraints(
  field: Pick<FieldDescriptor, 'name' | 'type' | 'format'>,
  raw: unknown,
  problems: string[],
  stored: StoredReading,
): FieldConstraints {
  const storedSchema = stored.storedSchema;
  const { name, type } = field;
  if (raw === undefined) return {};
  if (!isPlainObject(raw)) {
    problems.push(`Field "${name}": constraints must be an object.`);
    return {};
  }
  const c: FieldConstraints = {};
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case 'required':
      case 'unique':
        if (typeof value !== 'boolean') problems.push(`Field "${name}": constraint ${key} must be true or false.`);
        else c[key] = value;
        break;
      case 'minimum':
      case 'maximum': {
        if (!ORDERED_TYPES.has(type)) {
          problems.push(`Field "${name}": ${key} applies only to ${[...ORDERED_TYPES].join(', ')} fields.`);
          break;
        }
        const cast = constraintValue(field, value, storedSchema);
        if (cast.ok) c[key] = cast.value as number | string;
        // A stored bound no rule reads any more is left to the table's CHECK, which still holds it.
        else if (!storedSchema) problems.push(`Field "${name}": ${key} ${shown(value)} is not a valid ${type} value.`);
        break;
      }
      case 'minLength':
      case 'maxLength': {
        const length = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
        if (!LENGTH_TYPES.has(type)) problems.push(`Field "${name}": ${key} applies only to string, array and object fields.`);
        else if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
          problems.push(`Field "${name}": ${key} must be a non-negative integer.`);
        else c[key] = length;
        break;
      }
      case 'pattern':
        if (type !== 'string') problems.push(`Field "${name}": pattern applies only to string fields.`);
        else if (typeof value !== 'string') problems.push(`Field "${name}": pattern must be a regular expression string.`);
        else if (storedSchema && stored.patternDialect === 'ecmascript') {
          // Saved when patterns were JavaScript's (tenant migration 14 marks those tables): read with
          // the meaning they had; a pattern the engine cannot run fails the writes to its field.
          c.pattern = value;
          c.patternDialect = 'ecmascript';
        } else {
          // Refused here, when the schema is saved, rather than at the first write.
          const { userPatternProblem } = patternEngine();
          const problem = userPatternProblem(value, { match: 'whole', dialect: 'xsd' });
          if (problem === undefined) c.pattern = value;
          else if (storedSchema) {
            // Stored without a mark yet unreadable as XML Schema's: JavaScript's reading if it has one.
            c.pattern = value;
            if (userPatternProblem(value, { match: 'whole', dialect: 'ecmascript' }) === undefined) c.patternDialect = 'ecmascript';
          } else problems.push(`Field "${name}": pattern ${shown(value)} cannot be used: ${problem}.`);
        }
        break;
      case 'enum': {
        if (!Array.isArray(value) || value.length === 0) {
          problems.push(`Field "${name}": enum must be a non-empty list of allowed values.`);
          break;
        }
        const casts = value.map((item) => constraintValue(field, item, storedSchema));
        const wrong = value.filter((_, index) => !casts[index]!.ok);
        if (wrong.length > 0 && !storedSchema) {
          problems.push(`Field "${name}": enum values ${wrong.map(shown).join(', ')} are not of type ${type}.`);
          break;
        }
        // Stored members no rule reads any more are dropped: no value of the type can equal them.
        const members = casts.filter((cast) => cast.ok).map((cast) => (cast as { value: unknown }).value);
        if (members.length === 0) break;
        const keys = members.map((member) => uniqueKey(field, 'flat_table', member));
        if (new Set(keys).size !== keys.length && !storedSchema) problems.push(`Field "${name}": enum lists a value more than once.`);
        else c.enum = members;
        break;
      }
      default:
        problems.push(`Field "${name}": unknown constraint "${key}". Valid constraints: ${CONSTRAINT_KEYS}.`);
    }
  }
  if (c.minimum !== undefined && c.maximum !== undefined && compareKeys(orderKey(field, c.minimum), orderKey(field, c.maximum)) > 0) {
    problems.push(`Field "${name}": minimum is greater than maximum.`);
  }
  if (c.minLength !== undefined && c.maxLength !== undefined && c.minLength > c.maxLength)
    problems.push(`Field "${name}": minLength is greater than maxLength.`);
  return c;
}

/**
 * Field keys of the standard that describe a value's string form in a CSV file. Records here are
 * JSON, so they would change nothing; rather than ignore them silently, a schema giving them is
 * refused naming the key (README, Table Schema).
 */
const UNSUPPORTED_FIELD_KEYS: Record<string, string> = {
  trueValues: 'booleans are JSON true and false',
  falseValues: 'booleans are JSON true and false',
  bareNumber: 'numbers are JSON numbers',
  decimalChar: 'numbers are JSON numbers',
  groupChar: 'numbers are JSON numbers',
  missingValues: 'a missing value is JSON null',
};

/** The formats each type takes; `default` (or no format) is always allowed. */
const FORMATS_OF: Partial<Record<FieldType, readonly string[]>> = { string: STRING_FORMATS, geopoint: GEOPOINT_FORMATS };

function fieldFormat(
  name: string,
  type: FieldType,
  raw: unknown,
  problems: string[],
  storedSchema: boolean,
): FieldDescriptor['format'] | undefined {
  // `any` on a non-string type was taken (and ignored) before it was refused: stored schemas keep it.
  if (raw === undefined || raw === 'default' || (storedSchema && raw === 'any' && FORMATS_OF[type] === undefined))
    return type === 'geopoint' ? 'default' : undefined;
  const allowed = FORMATS_OF[type];
  if (allowed !== undefined && typeof raw === 'string' && allowed.includes(raw)) return raw as FieldDescriptor['format'];
  problems.push(
    allowed === undefined
      ? `Field "${name}": format ${shown(raw)} is not supported on ${type} fields; only "default" is.`
      : `Field "${name}" has an unknown format ${shown(raw)}. Valid formats: ${allowed.join(', ')}.`,
  );
  return undefined;
}

function nameList(raw: unknown, what: string, known: ReadonlySet<string>, problems: string[], allowEmpty = false): string[] | undefined {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || (!allowEmpty && list.length === 0) || !list.every((item) => typeof item === 'string')) {
    problems.push(`${what} must be a list of field names.`);
    return undefined;
  }
  const missing = list.filter((name) => !known.has(name));
  if (missing.length > 0) {
    problems.push(`${what} names fields that do not exist: ${missing.map(shown).join(', ')}.`);
    return undefined;
  }
  if (new Set(list).size !== list.length) {
    problems.push(`${what} names a field twice.`);
    return undefined;
  }
  return list;
}

interface FieldsResult {
  fields: FieldDescriptor[];
  search?: { sourceFields: string[] };
}

/** Whether a schema is read from storage (tolerant) or being saved (strict), and its pattern dialect. */
interface StoredReading {
  storedSchema: boolean;
  patternDialect: PatternDialect;
}

function compileFields(rawFields: unknown, problems: string[], stored: StoredReading): FieldsResult {
  const storedSchema = stored.storedSchema;
  if (!Array.isArray(rawFields) || rawFields.length === 0) {
    problems.push('The schema needs a non-empty "fields" list.');
    return { fields: [] };
  }
  const fields: FieldDescriptor[] = [];
  const seen = new Set<string>();
  let searchField: Record<string, unknown> | undefined;
  rawFields.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      problems.push(`Field ${index + 1} must be an object with a name and a type.`);
      return;
    }
    const { name, type } = raw;
    if (name === undefined || name === null || name === '') {
      problems.push(`Field ${index + 1} needs a "name".`);
      return;
    }
    if (!isSafeIdentifier(name)) {
      problems.push(
        `Field name ${shown(name)} is not valid: use lower-case letters, digits and _, starting with a letter or _, at most ${MAX_IDENTIFIER_LENGTH} characters.`,
      );
      return;
    }
    if (RESERVED_FIELD_NAMES.has(name)) {
      problems.push(`Field name "${name}" is reserved: ${RESERVED_FIELD_NAMES.get(name)}. Choose another name.`);
      return;
    }
    if (seen.has(name)) {
      problems.push(`Field "${name}" is defined more than once.`);
      return;
    }
    seen.add(name);
    if (name === SEARCH_VECTOR_FIELD) {
      searchField = raw;
      return;
    }
    if (type === undefined || type === null || type === '') {
      problems.push(`Field "${name}" needs a "type".`);
      return;
    }
    if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
      problems.push(`Field "${name}" has an unknown type ${shown(type)}. Valid types: ${FIELD_TYPES.join(', ')}.`);
      return;
    }
    const fieldType = type as FieldType;
    for (const key of Object.keys(raw)) {
      const why = Object.hasOwn(UNSUPPORTED_FIELD_KEYS, key) ? UNSUPPORTED_FIELD_KEYS[key] : undefined;
      if (why !== undefined && !storedSchema) problems.push(`Field "${name}": "${key}" is not supported: ${why}.`);
    }
    const format = fieldFormat(name, fieldType, raw.format, problems, storedSchema);
    const constraints = compileConstraints({ name, type: fieldType, format }, raw.constraints, problems, stored);
    const field: FieldDescriptor = { name, type: fieldType, constraints };
    if (format !== undefined) field.format = format;
    if (raw.default !== undefined && raw.default !== null) {
      const cast = castValue(field, raw.default);
      const legacy = !cast.ok && storedSchema && typeof raw.default === 'string' ? legacyTemporalText(fieldType, raw.default) : undefined;
      const read = legacy === undefined ? cast : castValue(field, legacy);
      if (read.ok) field.default = read.value;
      else if (!storedSchema && !cast.ok) problems.push(`Field "${name}": the default ${shown(raw.default)} is not valid. ${cast.problem}`);
      // A stored default no rule reads any more is left out: a record gives the field, or leaves it null.
    }
    fields.push(field);
  });
  if (searchField === undefined) return { fields };
  const stringFields = new Set(fields.filter((f) => f.type === 'string').map((f) => f.name));
  const declared = searchField['x-source-fields'];
  if (declared === undefined) return { fields, search: { sourceFields: [...stringFields] } };
  const known = new Set(fields.map((f) => f.name));
  const sources = nameList(declared, `"${SEARCH_VECTOR_FIELD}" x-source-fields`, known, problems);
  if (sources === undefined) return { fields };
  const notText = sources.filter((s) => !stringFields.has(s));
  if (notText.length > 0) {
    problems.push(
      `"${SEARCH_VECTOR_FIELD}" x-source-fields must name string fields: ${notText.map(shown).join(', ')} ${notText.length === 1 ? 'is' : 'are'} not.`,
    );
    return { fields };
  }
  return { fields, search: { sourceFields: sources } };
}

function compileForeignKeys(raw: unknown, self: TableDescriptor, target: CompileTarget, problems: string[]): ForeignKeySpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push('"foreignKeys" must be a list.');
    return [];
  }
  const known = new Set(self.fields.map((f) => f.name));
  const result: ForeignKeySpec[] = [];
  raw.forEach((entry, index) => {
    const label = `Foreign key ${index + 1}`;
    if (!isPlainObject(entry) || !isPlainObject(entry.reference)) {
      problems.push(`${label} needs "fields" and a "reference".`);
      return;
    }
    const fields = nameList(entry.fields, `${label} "fields"`, known, problems);
    const resource = entry.reference.resource;
    if (typeof resource !== 'string') {
      problems.push(`${label}: reference.resource must name a table of this app.`);
      return;
    }
    const isSelf = resource === '' || resource === target.name;
    const referenced = isSelf ? self : target.resolveTable?.(resource);
    if (referenced === undefined) {
      problems.push(`${label}: reference.resource ${shown(resource)} is not a table of this app.`);
      return;
    }
    const refFields = nameList(
      entry.reference.fields,
      `${label} reference.fields`,
      new Set(referenced.fields.map((f) => f.name)),
      problems,
    );
    const actions = entry['x-actions'];
    const onDeleteRaw = isPlainObject(actions) ? actions.onDelete : undefined;
    if (actions !== undefined && !isPlainObject(actions)) problems.push(`${label}: x-actions must be an object.`);
    const onDelete = (onDeleteRaw ?? 'RESTRICT') as OnDeleteAction;
    if (!(ON_DELETE_ACTIONS as readonly string[]).includes(onDelete)) {
      problems.push(`${label}: x-actions.onDelete ${shown(onDeleteRaw)} is not valid. Valid actions: ${ON_DELETE_ACTIONS.join(', ')}.`);
      return;
    }
    if (fields === undefined || refFields === undefined) return;
    if (fields.length !== refFields.length) {
      problems.push(`${label}: "fields" and reference.fields must have the same length.`);
      return;
    }
    const byName = new Map(self.fields.map((f) => [f.name, f]));
    const refByName = new Map(referenced.fields.map((f) => [f.name, f]));
    fields.forEach((name, i) => {
      const mine = byName.get(name)!;
      const theirs = refByName.get(refFields[i]!)!;
      if (mine.type !== theirs.type || (mine.format === 'uuid') !== (theirs.format === 'uuid')) {
        problems.push(
          `${label}: field "${name}" (${mine.type}) does not match the type of ${resource || target.name}.${theirs.name} (${theirs.type}).`,
        );
      }
      if (onDelete === 'SET NULL' && (mine.constraints.required === true || self.primaryKey.includes(name))) {
        problems.push(`${label}: SET NULL needs a nullable field, but "${name}" is required.`);
      }
      if (onDelete === 'SET DEFAULT' && mine.default === undefined) {
        problems.push(`${label}: SET DEFAULT needs a default, but field "${name}" has none.`);
      }
    });
    const uniqueKey =
      canonicalJson([...refFields].sort()) === canonicalJson([...referenced.primaryKey].sort()) ||
      (refFields.length === 1 && refByName.get(refFields[0]!)?.constraints.unique === true);
    if (!uniqueKey)
      problems.push(`${label}: reference.fields must be the primary key of ${shown(resource || target.name)} or a unique field.`);
    // A jsonb table keeps its non-key fields inside "data", where no database constraint can reach:
    // only key columns can hold or take a reference the database enforces (stored schemas stay readable).
    if (target.storedSchema !== true) {
      const inData = self.provider === 'jsonb' ? fields.filter((name) => !self.primaryKey.includes(name)) : [];
      if (inData.length > 0)
        problems.push(
          `${label}: on a jsonb table a foreign key's fields must be primary-key columns; ${inData.map(shown).join(', ')} ${inData.length === 1 ? 'is' : 'are'} stored inside "data", where the database cannot enforce a reference (use a flat_table datasource for this table).`,
        );
      else if (referenced.provider === 'jsonb' && canonicalJson([...refFields].sort()) !== canonicalJson([...referenced.primaryKey].sort()))
        problems.push(
          `${label}: ${shown(resource || target.name)} is a jsonb table, so reference.fields must be its primary key (its other fields are stored inside "data").`,
        );
    }
    result.push({ fields, reference: { resource: isSelf ? (target.name ?? resource) : resource, fields: refFields }, onDelete });
  });
  return result;
}

function compileIndexes(raw: unknown, self: TableDescriptor, problems: string[]): IndexSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push('"indexes" must be a list.');
    return [];
  }
  const known = new Set(self.fields.map((f) => f.name));
  const names = new Set<string>();
  const result: IndexSpec[] = [];
  raw.forEach((entry, index) => {
    const label = `Index ${index + 1}`;
    if (!isPlainObject(entry)) {
      problems.push(`${label} must be an object.`);
      return;
    }
    if (entry.expression !== undefined) {
      problems.push(`${label}: "expression" indexes are not supported; list "fields" instead.`);
      return;
    }
    if (entry.name !== undefined) {
      if (!isSafeIdentifier(entry.name)) {
        problems.push(`${label}: name ${shown(entry.name)} is not a valid identifier.`);
        return;
      }
      if (names.has(entry.name)) {
        problems.push(`${label}: the name "${entry.name}" is used twice.`);
        return;
      }
      names.add(entry.name);
    }
    const fields = nameList(entry.fields, `${label} "fields"`, known, problems);
    const method = (entry.method ?? 'btree') as IndexMethod;
    if (!(INDEX_METHODS as readonly string[]).includes(method)) {
      problems.push(`${label}: method ${shown(entry.method)} is not valid. Valid methods: ${INDEX_METHODS.join(', ')}.`);
    }
    if (entry.unique !== undefined && typeof entry.unique !== 'boolean') problems.push(`${label}: unique must be true or false.`);
    const unique = entry.unique === true;
    if (unique && method !== 'btree') problems.push(`${label}: only btree indexes can be unique.`);
    let where: Predicate | undefined;
    if (entry.where !== undefined) {
      if (typeof entry.where !== 'string') problems.push(`${label}: where must be a string.`);
      else {
        try {
          where = parsePredicate(entry.where, known);
        } catch (error) {
          if (!(error instanceof PredicateError)) throw error;
          problems.push(`${label}: where is not a supported predicate: ${error.message}.`);
        }
      }
    }
    if (fields === undefined) return;
    const spec: IndexSpec = { fields, unique, method };
    if (typeof entry.name === 'string') spec.name = entry.name;
    if (where !== undefined) spec.where = where;
    result.push(spec);
  });
  return result;
}

/** Validates a Table Schema and compiles it; answers the problems instead when there are any. */
export function analyzeTableSchema(schema: unknown, target: CompileTarget): { compiled: CompiledTable } | { problems: string[] } {
  const problems: string[] = [];
  if (!isPlainObject(schema)) return { problems: ['The table schema must be a JSON object.'] };
  // A schema saved before these keys were refused stays readable (storedSchema).
  if (schema.missingValues !== undefined && target.storedSchema !== true)
    problems.push(`"missingValues" is not supported: ${UNSUPPORTED_FIELD_KEYS.missingValues}.`);
  const stored: StoredReading = {
    storedSchema: target.storedSchema === true,
    patternDialect: target.storedSchema === true ? (target.patternDialect ?? 'xsd') : 'xsd',
  };
  const { fields, search } = compileFields(schema.fields, problems, stored);
  if (problems.length > 0) return { problems };
  const known = new Set(fields.map((f) => f.name));
  let primaryKey: string[] | undefined;
  if (schema.primaryKey !== undefined) {
    primaryKey = nameList(schema.primaryKey, '"primaryKey"', known, problems);
  } else if (known.has(DEFAULT_KEY_FIELD)) {
    primaryKey = [DEFAULT_KEY_FIELD];
  } else {
    fields.unshift({ name: DEFAULT_KEY_FIELD, type: 'string', format: 'uuid', constraints: { required: true } });
    primaryKey = [DEFAULT_KEY_FIELD];
  }
  if (primaryKey === undefined) return { problems };
  for (const name of primaryKey) {
    const field = fields.find((f) => f.name === name)!;
    if (['object', 'array', 'geojson', 'geopoint', 'any'].includes(field.type))
      problems.push(`Primary key field "${name}" cannot be of type ${field.type}.`);
    if (target.provider === 'jsonb' && name === JSONB_DATA_COLUMN)
      problems.push(`A jsonb table cannot have a primary key field named "${JSONB_DATA_COLUMN}".`);
  }
  if (primaryKey.length === 1) {
    const key = fields.find((f) => f.name === primaryKey[0])!;
    if (key.type === 'string') key.generated = 'uuid';
    if (key.type === 'integer') key.generated = 'identity';
  }
  const descriptor: TableDescriptor = {
    schemaName: target.schemaName,
    tableName: target.tableName,
    provider: target.provider,
    fields,
    primaryKey,
    softDelete: known.has('is_deleted'),
  };
  if (search !== undefined) descriptor.search = search;
  if (target.storedSchema !== true) {
    // A default its own field refuses would be written unchecked (a pattern has no CHECK) or fail the
    // table's CHECK at the first write that omits the field, while validate_data passes it.
    for (const field of fields) {
      if (field.default === undefined) continue;
      const refused = constraintProblems(descriptor, field, field.default);
      if (refused.length > 0)
        problems.push(`Field "${field.name}": the default ${shown(field.default)} breaks the field's constraints: ${refused.join(' ')}`);
    }
  }
  const foreignKeys = target.descriptorOnly === true ? [] : compileForeignKeys(schema.foreignKeys, descriptor, target, problems);
  const indexes = compileIndexes(schema.indexes, descriptor, problems);
  const hierarchy = compileHierarchy(schema, primaryKey, problems, target.storedSchema === true);
  if (target.storedSchema !== true) {
    // The index materialize makes for a foreign key takes this name (ddl.ts `foreignKeyIndexes`).
    const keyIndexNames = new Set(foreignKeys.map((fk) => foreignKeyIndexSuffix(fk.fields)));
    indexes.forEach((spec, position) => {
      if (spec.name !== undefined && keyIndexNames.has(spec.name))
        problems.push(`Index ${position + 1}: the name "${spec.name}" is reserved for the index of a foreign key; choose another.`);
    });
  }
  if (problems.length > 0) return { problems };
  return { compiled: { descriptor, foreignKeys, indexes, ...(hierarchy === undefined ? {} : { hierarchy }) } };
}

/** Compiles a valid schema or throws the 400 `{json_schema: [...]}` error. */
export function compileTable(schema: unknown, target: CompileTarget): CompiledTable {
  const result = analyzeTableSchema(schema, target);
  if ('problems' in result) throw new TableSchemaError(result.problems);
  return result.compiled;
}
