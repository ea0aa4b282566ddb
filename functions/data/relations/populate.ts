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

/**
 * One row, `pairs`: the related records of every key as one JSON text, `[[key, record], ...]`, each
 * key's list cut to the node's window and in its order. One row rather than a row per record spares
 * the driver its work per row: populate of 100 posts' authors and their companies cost the process
 * 0.88-0.93 ms of CPU per request this way, 0.94-0.97 ms with a row per record.
 */
function populateSql(node: PopulateNode, keys: KeySource): SQL {
  const far = node.relation.target.descriptor;
  const [first, second] = node.relation.hops;
  if (node.relation.kind === 'forward') {
    return pairsSql(
      sql`select (${typedValue(far, first.targetField)})::text as k, ${recordText(far)} as record
        from ${tableSql(far)} as ${ROW} where ${keysMatch(far, first.targetField, keys)} and ${visible(far)}`,
    );
  }
  const window = (partition: SQL) => sql`row_number() over (partition by ${partition} order by ${orderOf(node)})`;
  const inner =
    second === undefined
      ? sql`select (${typedValue(far, first.targetField)})::text as k, ${recordText(far)} as record, ${window(typedValue(far, first.targetField))} as n
          from ${tableSql(far)} as ${ROW} where ${keysMatch(far, first.targetField, keys)} and ${visible(far)}`
      : throughSql(first, second, keys, window(sql`j.k`));
  return pairsSql(inner, sql`where q.n > ${node.offset} and q.n <= ${node.offset + node.limit}`, sql` order by q.k, q.n`);
}

/** The rows `(k, record)` of `rows` that `where` keeps, aggregated into the one `pairs` text in `order`. */
function pairsSql(rows: SQL, where: SQL = sql``, order: SQL = sql``): SQL {
  return sql`select '[' || coalesce(string_agg('[' || to_json(q.k)::text || ',' || q.record || ']', ','${order}), '') || ']' as pairs
    from (${rows}) as q ${where}`;
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

/** A level statement's one row. */
type PairsRow = Row & { pairs: string };

/** The `[key, record]` pairs of a level statement's answer, in one parse. */
function pairsOf(rows: Row[]): Array<[string, DataRecord]> {
  const [row] = rows as PairsRow[];
  return row === undefined ? [] : (parseExactJson(row.pairs) as Array<[string, DataRecord]>);
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
    const related = new Map<string, DataRecord[]>();
    for (const [key, record] of pairsOf((await fetched.get(node)) ?? [])) {
      const list = related.get(key);
      if (list === undefined) related.set(key, [record]);
      else list.push(record);
    }
    records.forEach((record, at) => {
      const found = keys[at] === undefined ? [] : (related.get(keys[at]!) ?? []);
      record[node.key] = node.relation.kind === 'forward' ? (found[0] ?? null) : found;
    });
    if (node.children.length > 0) await populateRecords(db, [...related.values()].flat(), node.children, fetched);
  }
}
