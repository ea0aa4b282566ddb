// Attaches related records to a page that has been read already: one statement per relation per
// level over the keys of the whole level (never one per row). Related rows are read as on their own
// table (soft-deleted ones stay hidden); a forward relation replaces the key field's value with the
// record (null when none is visible), the others add a list under the relation's name. Below a
// forward relation the next level's keys are a subquery of the level's own, so a chain of them
// (`populate=author.company_id`) is sent in one batch instead of one round trip per level.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Database, Row } from '#shared/db/database.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { recordText, softDeleteCondition } from '../records/query/compile.ts';
import { castTo, ROW, tableSql, typedValue } from '../records/query/field-sql.ts';
import type { FieldDescriptor, TableDescriptor } from '../tables/table-descriptor.ts';
import type { PopulateNode } from './populate-plan.ts';
import type { RelationHop } from './relation-graph.ts';

export type DataRecord = Record<string, unknown>;

/** A key as text, the form both sides meet in: the SQL side answers `::text`, this side `String()`. */
function keyText(value: unknown): string | undefined {
  if (value === null || value === undefined || typeof value === 'object') return undefined;
  return String(value);
}

function visible(table: TableDescriptor): SQL {
  return softDeleteCondition(table, 'exclude') ?? sql`true`;
}

/** A level's keys: the values read from the records above, or a subquery of the level above. */
type KeySource = { list: string[] } | { query: SQL };

function keysMatch(table: TableDescriptor, field: FieldDescriptor, keys: KeySource): SQL {
  return 'list' in keys
    ? sql`${typedValue(table, field)} = any(${sql.param(keys.list)}::text[]${castTo(field)}[])`
    : sql`${typedValue(table, field)} in (${keys.query})`;
}

/** The order of a list of related records: the requested fields, then the far table's key. */
function orderOf(node: PopulateNode): SQL {
  const far = node.relation.target.descriptor;
  const flip = node.order === 'desc';
  const terms = node.sort.map((term) => sql`${typedValue(far, term.field)} ${term.descending || flip ? sql`desc` : sql`asc`}`);
  for (const name of far.primaryKey) {
    const field = far.fields.find((candidate) => candidate.name === name)!;
    terms.push(sql`${typedValue(far, field)} ${node.sort.length === 0 && flip ? sql`desc` : sql`asc`}`);
  }
  return sql.join(terms, sql`, `);
}

/** Rows `(k, record)`: the related records of every key, each key's list cut to the node's window. */
function populateSql(node: PopulateNode, keys: KeySource): SQL {
  const far = node.relation.target.descriptor;
  const [first, second] = node.relation.hops;
  if (node.relation.kind === 'forward') {
    return sql`select (${typedValue(far, first.targetField)})::text as k, ${recordText(far)} as record
      from ${tableSql(far)} as ${ROW} where ${keysMatch(far, first.targetField, keys)} and ${visible(far)}`;
  }
  const window = (partition: SQL) => sql`row_number() over (partition by ${partition} order by ${orderOf(node)})`;
  const inner =
    second === undefined
      ? sql`select (${typedValue(far, first.targetField)})::text as k, ${recordText(far)} as record, ${window(typedValue(far, first.targetField))} as n
          from ${tableSql(far)} as ${ROW} where ${keysMatch(far, first.targetField, keys)} and ${visible(far)}`
      : throughSql(first, second, keys, window(sql`j.k`));
  return sql`select q.k, q.record from (${inner}) as q
    where q.n > ${node.offset} and q.n <= ${node.offset + node.limit} order by q.k, q.n`;
}

/** Many-to-many: the far rows joined to the through table's rows of the keys. */
function throughSql(first: RelationHop, second: RelationHop, keys: KeySource, window: SQL): SQL {
  const through = first.target.descriptor;
  const far = second.target.descriptor;
  // Inside the derived table `t` is the through table; outside it, the far table.
  return sql`select j.k, ${recordText(far)} as record, ${window} as n
    from ${tableSql(far)} as ${ROW}
    join (select (${typedValue(through, first.targetField)})::text as k, ${typedValue(through, second.baseField)} as f
      from ${tableSql(through)} as ${ROW} where ${keysMatch(through, first.targetField, keys)} and ${visible(through)}) as j
      on ${typedValue(far, second.targetField)} = j.f
    where ${visible(far)}`;
}

/**
 * The statement of `node` over `keys` and, below a forward relation (whose related records are every
 * visible row the keys reach, with no window), the statements of its children with their keys as a
 * subquery of the same rows, down the tree.
 */
function levelStatements(node: PopulateNode, keys: KeySource, into: Array<[PopulateNode, SQL]>): void {
  into.push([node, populateSql(node, keys)]);
  if (node.relation.kind !== 'forward') return;
  const hop = node.relation.hops[0];
  const far = node.relation.target.descriptor;
  for (const child of node.children) {
    // In the type of the field the keys meet, as the listed keys are cast to it.
    const [childHop] = child.relation.hops;
    const query = sql`select (${typedValue(far, childHop.baseField)})${castTo(childHop.targetField)} from ${tableSql(far)} as ${ROW}
      where ${keysMatch(far, hop.targetField, keys)} and ${visible(far)}`;
    levelStatements(child, { query }, into);
  }
}

/** A related record's row: `record` is its JSON text (PGlite may hand back the value instead). */
type RelatedRow = Row & { k: string; record: string | DataRecord };

/**
 * The rows' records. One parse of them all as an array: a JSON.parse per record costs half as much
 * again for a page's worth of small records (100 of them: 92 µs against 62).
 */
function recordsOf(rows: RelatedRow[]): DataRecord[] {
  if (!rows.every((row) => typeof row.record === 'string')) {
    return rows.map((row) => (typeof row.record === 'string' ? parseExactJson(row.record) : row.record) as DataRecord);
  }
  return parseExactJson(`[${rows.map((row) => row.record).join(',')}]`) as DataRecord[];
}

/**
 * Populates `records` with every node's relation, level by level. `fetched` holds the rows of nodes
 * already sent (with a forward relation above them); the others are sent here, together.
 */
export async function populateRecords(
  db: Database,
  records: DataRecord[],
  nodes: PopulateNode[],
  fetched = new Map<PopulateNode, Promise<Row[]>>(),
): Promise<void> {
  if (records.length === 0 || nodes.length === 0) return;
  // Every key is read before any forward relation replaces its field with a record.
  const keysByNode = nodes.map((node) => records.map((record) => keyText(record[node.relation.hops[0].baseField.name])));
  const statements: Array<[PopulateNode, SQL]> = [];
  nodes.forEach((node, index) => {
    const distinct = [...new Set(keysByNode[index]!.filter((key): key is string => key !== undefined))];
    if (!fetched.has(node) && distinct.length > 0) levelStatements(node, { list: distinct }, statements);
  });
  const answers = db.rowsTogether(statements.map(([, statement]) => statement));
  statements.forEach(([node], index) => {
    // Awaited below in turn; one failing first must not leave the others' failures unhandled.
    answers[index]!.catch(() => undefined);
    fetched.set(node, answers[index]!);
  });
  for (const [index, node] of nodes.entries()) {
    const keys = keysByNode[index]!;
    const rows = ((await fetched.get(node)) ?? []) as RelatedRow[];
    const parsed = recordsOf(rows);
    const related = new Map<string, DataRecord[]>();
    rows.forEach((row, at) => {
      const list = related.get(row.k);
      if (list === undefined) related.set(row.k, [parsed[at]!]);
      else list.push(parsed[at]!);
    });
    records.forEach((record, at) => {
      const found = keys[at] === undefined ? [] : (related.get(keys[at]!) ?? []);
      record[node.key] = node.relation.kind === 'forward' ? (found[0] ?? null) : found;
    });
    if (node.children.length > 0) await populateRecords(db, [...related.values()].flat(), node.children, fetched);
  }
}
