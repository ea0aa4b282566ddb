// The rules of a hierarchy's edges: ends are visible records of the table (never the same one), the
// type is one the schema declares, `max_outgoing` caps a record's edges of a type (checked with both
// ends' rows locked, so two requests cannot both take the last place), one edge per (from, to, type).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { ForeignKeyViolationError, UniqueViolationError, CheckViolationError } from '#shared/db/database-errors.ts';
import { ConflictError, NotFoundError, type FieldErrors } from '#shared/errors.ts';
import { plannedRows, plannedTotal } from '#shared/db/counted-page.ts';
import { COUNT_MODE_PROBLEM, countModeOf } from '#shared/http/pagination.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { isJsonObject } from '#shared/http/json-object.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { parseScalar } from '../records/query/field-sql.ts';
import { queryError } from '../records/query/query-error.ts';
import { assertMayWriteRecords } from '../records/record-access.ts';
import { validationFailed } from '../records/record-preparation.ts';
import { existingTable } from '../tables/table-lookup.ts';
import {
  countEdgesSql,
  deleteEdgesSql,
  findEdgeSql,
  insertEdgesSql,
  keyFieldOf,
  listEdgesSql,
  matchingEdgesSql,
  outgoingCountsSql,
  storedEdgesSql,
  updateEdgeSql,
  visibleNodesSql,
  type NewEdge,
} from './edges-sql.ts';
import { asHierarchy, typeList, type HierarchyTable } from './hierarchy-table.ts';
import { relationsOf, type TableAddress } from './relations-service.ts';

export type Edge = Record<string, unknown>;

/** The edges' address: the short URL form, or the long one with the table's datasource. */
export interface EdgesAddress extends TableAddress {
  datasource_slug?: string;
}

async function hierarchyAt(db: Queryable, site: Tenant, address: EdgesAddress): Promise<HierarchyTable> {
  // The long form names the datasource: a table of another datasource (or none) is 404, as for the table itself.
  if (address.datasource_slug !== undefined) await existingTable(db, site, address);
  const found = await relationsOf(db, site, address);
  // A reference's edges are its source's: served there, where the source app's access applies.
  if (found.sourceApp !== undefined)
    throw new ConflictError(
      `"${address.name}" is a reference (import-reference): its edges are served by its source table in app "${found.sourceApp}".`,
    );
  return asHierarchy(found.base);
}

function edgeOf(text: unknown): Edge {
  return (typeof text === 'string' ? parseExactJson(text) : text) as Edge;
}

const PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 1000;

function wholeNumber(parameter: string, raw: string | undefined, fallback: number, minimum: number, maximum: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw queryError(parameter, 'expects a whole number');
  const value = Number(raw);
  if (value < minimum || value > maximum) throw queryError(parameter, `must be between ${minimum} and ${maximum}`);
  return value;
}

function keyParameter(table: HierarchyTable, parameter: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = parseScalar(keyFieldOf(table.nodes), raw);
  if (value === undefined) throw queryError(parameter, `"${raw}" is not a key of this table`);
  return value;
}

/** The edges list in the data lists' shape; `next` under `_count=none`, `total_is_estimate` under `planned`. */
export interface EdgeList {
  total: number | null;
  page: number;
  page_size: number;
  total_is_estimate?: boolean;
  next?: string | null;
  results: Edge[];
}

/**
 * One page of edges with its total as `_count` asks (DECISIONS): `exact` counts in the page's own
 * statement, `planned` asks the planner, `none` counts nothing. The page reads one edge more than it
 * shows, so whether a page follows is known in every mode; `pageUrl` writes the link to a page.
 */
export async function listEdges(
  db: Queryable,
  site: Tenant,
  address: EdgesAddress,
  query: Record<string, string | undefined>,
  pageUrl: (page: number) => string,
): Promise<EdgeList> {
  const table = await hierarchyAt(db, site, address);
  const page = wholeNumber('page', query.page, 1, 1, 1_000_000);
  const pageSize = wholeNumber('page_size', query.page_size, PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const count = countModeOf(query._count);
  if (count === undefined) throw queryError('_count', COUNT_MODE_PROBLEM);
  const filter = {
    from: keyParameter(table, 'from_id', query.from_id),
    to: keyParameter(table, 'to_id', query.to_id),
    types: query.types === undefined ? undefined : typeList(table, 'types', query.types),
  };
  const window = { pageSize, offset: (page - 1) * pageSize };
  const read = await db.rows<{ edge: string; total: number | null }>(
    listEdgesSql(table.nodes, filter, pageSize + 1, window.offset, count === 'exact'),
  );
  const results = read.slice(0, pageSize).map((row) => edgeOf(row.edge));
  const list = { page, page_size: pageSize };
  if (count === 'none') return { total: null, ...list, next: read.length > pageSize ? pageUrl(page + 1) : null, results };
  if (count === 'planned') {
    const planned = await plannedTotal(window, read.length, () => plannedRows(db, matchingEdgesSql(table.nodes, filter)));
    return { total: planned.total, ...list, total_is_estimate: planned.estimated, results };
  }
  const total =
    read.length > 0 ? Number(read[0]!.total) : Number((await db.rows<{ total: number }>(countEdgesSql(table.nodes, filter)))[0]!.total);
  return { total, ...list, results };
}

/** Field errors keyed by what a client sent: no prototype, so `constructor` or `__proto__` is a plain key. */
function noErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

function addError(errors: FieldErrors, key: string, message: string): void {
  errors[key] = [...(Object.hasOwn(errors, key) ? errors[key]! : []), message];
}

/** One edge body checked; `partial` for PATCH, where every member is optional. */
function checkedEdge(table: HierarchyTable, input: unknown, prefix: string, errors: FieldErrors, partial: boolean): Partial<NewEdge> {
  const fail = (field: string, message: string) => addError(errors, `${prefix}${field}`, message);
  if (!isJsonObject(input)) {
    fail('non_field_errors', 'Expected an object {from_id, to_id, type, metadata?}.');
    return {};
  }
  const edge: Partial<NewEdge> = {};
  for (const key of Object.keys(input))
    if (!['from_id', 'to_id', 'type', 'metadata'].includes(key)) fail(key, 'Unknown member of an edge.');
  // Own members only: `{"__proto__": {"type": ...}}` gives no type.
  const member = (name: string): unknown => (Object.hasOwn(input, name) ? input[name] : undefined);
  const key = keyFieldOf(table.nodes);
  for (const end of ['from_id', 'to_id'] as const) {
    const value = member(end);
    if (value === undefined) {
      if (!partial) fail(end, 'This field is required.');
      continue;
    }
    const parsed =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? parseScalar(key, String(value)) : undefined;
    if (parsed === undefined) fail(end, `Expected a key of this table (${key.type}).`);
    else edge[end] = parsed;
  }
  const type = member('type');
  if (type === undefined) {
    if (!partial) fail('type', 'This field is required.');
  } else if (typeof type !== 'string' || !table.hierarchy.types.some((declared) => declared.name === type)) {
    fail('type', `Unknown edge type; declared types: ${table.hierarchy.types.map((declared) => declared.name).join(', ') || '(none)'}.`);
  } else edge.type = type;
  const metadata = member('metadata');
  if (metadata !== undefined) {
    if (!isJsonObject(metadata)) fail('metadata', 'Expected a JSON object.');
    else edge.metadata = metadata;
  } else if (!partial) edge.metadata = {};
  if (edge.from_id !== undefined && edge.from_id === edge.to_id) fail('to_id', 'An edge joins two different records.');
  return edge;
}

/** An edge's ends and type as the database writes its keys: the same text is the same edge. */
function edgeKey(from: string, type: string, to: string): string {
  return JSON.stringify([from, type, to]);
}

/**
 * Both ends must be visible records (their rows stay locked, so no other writer adds or removes an
 * edge between them meanwhile), never one record, each (from, type) within its `max_outgoing`, and
 * each edge new: not stored already nor twice in `edges`. Keys compare as the database compares
 * them (its text of the typed key), so 'X' and 'x' are two records and a datetime key given in
 * another offset is the same one. `replacing` is the edge a PATCH changes (its ends' keys as stored).
 */
async function checkEnds(
  tx: Queryable,
  table: HierarchyTable,
  edges: NewEdge[],
  prefix: (index: number) => string,
  replacing?: { id: string; from_key: string; type: string },
): Promise<void> {
  const ends = [...new Set(edges.flatMap((edge) => [edge.from_id, edge.to_id]))];
  const stored = new Map(
    (await tx.rows<{ given: string; k: string }>(visibleNodesSql(table.nodes, ends))).map((row) => [row.given, row.k] as const),
  );
  const errors = noErrors();
  edges.forEach((edge, index) => {
    for (const end of ['from_id', 'to_id'] as const)
      if (!stored.has(edge[end])) addError(errors, `${prefix(index)}${end}`, 'No record with this key.');
    if (stored.has(edge.from_id) && stored.get(edge.from_id) === stored.get(edge.to_id))
      addError(errors, `${prefix(index)}to_id`, 'An edge joins two different records.');
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const keyed = edges.map((edge) => ({ from_id: stored.get(edge.from_id)!, to_id: stored.get(edge.to_id)!, type: edge.type }));
  const seen = new Set<string>();
  keyed.forEach((edge, index) => {
    const key = edgeKey(edge.from_id, edge.type, edge.to_id);
    if (seen.has(key)) addError(errors, `${prefix(index)}to_id`, 'This edge is given twice.');
    seen.add(key);
  });
  for (const row of await tx.rows<{ i: number }>(storedEdgesSql(table.nodes, keyed, replacing?.id)))
    addError(errors, `${prefix(Number(row.i))}to_id`, 'An edge of this type between these records already exists.');
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const capped = table.hierarchy.types.filter((type) => type.maxOutgoing !== undefined);
  if (capped.length === 0) return;
  const counts = new Map<string, number>();
  for (const row of await tx.rows<{ from_id: string; type: string; n: number }>(
    outgoingCountsSql(table.nodes, [...new Set(keyed.map((edge) => edge.from_id))]),
  )) {
    counts.set(edgeKey(row.from_id, row.type, ''), Number(row.n));
  }
  if (replacing !== undefined) {
    const key = edgeKey(replacing.from_key, replacing.type, '');
    counts.set(key, (counts.get(key) ?? 1) - 1);
  }
  keyed.forEach((edge, index) => {
    const max = capped.find((type) => type.name === edge.type)?.maxOutgoing;
    if (max === undefined) return;
    const key = edgeKey(edge.from_id, edge.type, '');
    const next = (counts.get(key) ?? 0) + 1;
    counts.set(key, next);
    if (next > max)
      addError(
        errors,
        `${prefix(index)}type`,
        `Record ${edges[index]!.from_id} may have at most ${max} outgoing "${edge.type}" edge${max === 1 ? '' : 's'}.`,
      );
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/**
 * The database's own refusals in the same shape, for what `checkEnds` could not see (a writer outside
 * this service); `field` names the member, with the edge's index where one edge of a batch is meant.
 */
async function mappingEdgeErrors<T>(field: (name: string) => string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueViolationError)
      throw validationFailed({ [field('to_id')]: ['An edge of this type between these records already exists.'] });
    if (error instanceof ForeignKeyViolationError)
      throw validationFailed({ [field(error.constraint?.includes('from') === true ? 'from_id' : 'to_id')]: ['No record with this key.'] });
    if (error instanceof CheckViolationError) throw validationFailed({ [field('to_id')]: ['An edge joins two different records.'] });
    throw error;
  }
}

export async function createEdges(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, body: unknown[]) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const errors = noErrors();
  const edges = body.map((input, index) => checkedEdge(table, input, `${index}.`, errors, false) as NewEdge);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (edges.length === 0) return { total: 0, results: [] };
  const created = await db.transaction(async (tx) => {
    await checkEnds(tx, table, edges, (index) => `${index}.`);
    // checkEnds saw every refusal with the rows locked; one edge alone still names its index.
    const field = (name: string) => (edges.length === 1 ? `0.${name}` : name);
    return mappingEdgeErrors(field, () => tx.rows<{ edge: string }>(insertEdgesSql(table.nodes, edges)));
  });
  return { total: created.length, results: created.map((row) => edgeOf(row.edge)) };
}

function edgeId(id: string): string {
  if (!/^\d{1,18}$/.test(id)) throw new NotFoundError('Not found', { extras: { detail: `No edge with id "${id}".` } });
  return id;
}

/** PATCH addresses one edge, so its errors name the member alone (no index), as a record's PATCH does. */
export async function updateEdge(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, id: string, body: unknown) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const errors = noErrors();
  const change = checkedEdge(table, body, '', errors, true);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (Object.keys(change).length === 0)
    throw validationFailed({ non_field_errors: ['Give at least one of from_id, to_id, type, metadata.'] });
  return db.transaction(async (tx) => {
    const [current] = await tx.rows<{ edge: string; from_key: string; to_key: string }>(findEdgeSql(table.nodes, edgeId(id)));
    if (current === undefined) throw new NotFoundError('Not found', { extras: { detail: `No edge with id "${id}".` } });
    const before = edgeOf(current.edge);
    const after: NewEdge = {
      from_id: change.from_id ?? current.from_key,
      to_id: change.to_id ?? current.to_key,
      type: change.type ?? String(before.type),
      metadata: {},
    };
    if (change.from_id !== undefined || change.to_id !== undefined || change.type !== undefined)
      await checkEnds(tx, table, [after], () => '', { id, from_key: current.from_key, type: String(before.type) });
    const [updated] = await mappingEdgeErrors(
      (name) => name,
      () => tx.rows<{ edge: string }>(updateEdgeSql(table.nodes, id, change)),
    );
    return { data: edgeOf(updated!.edge) };
  });
}

/** An edge id as a client may send it: a whole number, or its digits as a string. */
function edgeIdText(value: unknown): string | undefined {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))
        ? String(value)
        : undefined;
  return text !== undefined && /^\d{1,18}$/.test(text) ? text : undefined;
}

export async function deleteEdges(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, body: unknown) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const ids = isJsonObject(body) && Object.hasOwn(body, 'ids') ? body.ids : undefined;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 10_000)
    throw validationFailed({ ids: ['Expected {ids: [edge ids]} with 1 to 10000 ids.'] });
  // Each id on its own: `String([17])` is "17", so a nested list would pass a check of the text.
  const texts = ids.map(edgeIdText);
  if (texts.some((text) => text === undefined)) throw validationFailed({ ids: ['Edge ids are whole numbers.'] });
  const deleted = await db.rows(deleteEdgesSql(table.nodes, texts as string[]));
  return { deleted: deleted.length };
}
