// The rules of a hierarchy's edges: ends are visible records of the table (never the same one), the
// type is one the schema declares, `max_outgoing` caps a record's edges of a type (checked with both
// ends' rows locked, so two requests cannot both take the last place), one edge per (from, to, type).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { ForeignKeyViolationError, UniqueViolationError, CheckViolationError } from '#shared/db/database-errors.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { isJsonObject } from '#shared/http/json-object.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { parseScalar } from '../records/query/field-sql.ts';
import { queryError } from '../records/query/query-error.ts';
import { assertMayWriteRecords } from '../records/record-access.ts';
import { validationFailed } from '../records/record-preparation.ts';
import type { HierarchySpec } from '../tables/hierarchy-schema.ts';
import type { TableDescriptor } from '../tables/table-descriptor.ts';
import { existingTable } from '../tables/table-service.ts';
import {
  countEdgesSql,
  deleteEdgesSql,
  findEdgeSql,
  insertEdgesSql,
  keyFieldOf,
  listEdgesSql,
  outgoingCountsSql,
  updateEdgeSql,
  visibleNodesSql,
  type NewEdge,
} from './edges-sql.ts';
import type { RelationTable } from './relation-graph.ts';
import { relationsOf, type TableAddress } from './relations-service.ts';

export type Edge = Record<string, unknown>;

export interface HierarchyTable {
  nodes: TableDescriptor;
  hierarchy: HierarchySpec;
}

/** The table as a hierarchy, or 400 when its schema does not say `hierarchy: true` (DECISIONS). */
export function asHierarchy(table: RelationTable, parameter?: string): HierarchyTable {
  if (table.hierarchy === undefined) {
    const problem = `table "${table.name}" has no hierarchy (its schema does not say "hierarchy": true)`;
    throw parameter === undefined ? new ValidationError(`The ${problem}.`) : queryError(parameter, problem);
  }
  return { nodes: table.descriptor, hierarchy: table.hierarchy };
}

/** The edges' address: the short URL form, or the long one with the table's datasource. */
export interface EdgesAddress extends TableAddress {
  datasource_slug?: string;
}

async function hierarchyAt(db: Queryable, site: Tenant, address: EdgesAddress): Promise<HierarchyTable> {
  // The long form names the datasource: a table of another datasource (or none) is 404, as for the table itself.
  if (address.datasource_slug !== undefined) await existingTable(db, site, address);
  return asHierarchy((await relationsOf(db, site, address)).base);
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

/** Declared type names from a comma list; 400 naming `parameter` for one the schema does not declare. */
export function typeList(table: HierarchyTable, parameter: string, raw: string): string[] {
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !table.hierarchy.types.some((type) => type.name === name));
  if (unknown.length > 0)
    throw queryError(parameter, `unknown edge type${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `"${name}"`).join(', ')}`);
  return names;
}

export async function listEdges(db: Queryable, site: Tenant, address: EdgesAddress, query: Record<string, string | undefined>) {
  const table = await hierarchyAt(db, site, address);
  const page = wholeNumber('page', query.page, 1, 1, 1_000_000);
  const pageSize = wholeNumber('page_size', query.page_size, PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const filter = {
    from: keyParameter(table, 'from_id', query.from_id),
    to: keyParameter(table, 'to_id', query.to_id),
    types: query.types === undefined ? undefined : typeList(table, 'types', query.types),
  };
  const rows = await db.rows<{ edge: string; total: number }>(listEdgesSql(table.nodes, filter, pageSize, (page - 1) * pageSize));
  const total =
    rows.length > 0 ? Number(rows[0]!.total) : Number((await db.rows<{ total: number }>(countEdgesSql(table.nodes, filter)))[0]!.total);
  return { total, page, page_size: pageSize, results: rows.map((row) => edgeOf(row.edge)) };
}

function addError(errors: Record<string, string[]>, key: string, message: string): void {
  errors[key] = [...(errors[key] ?? []), message];
}

/** One edge body checked; `partial` for PATCH, where every member is optional. */
function checkedEdge(
  table: HierarchyTable,
  input: unknown,
  prefix: string,
  errors: Record<string, string[]>,
  partial: boolean,
): Partial<NewEdge> {
  const fail = (field: string, message: string) => addError(errors, `${prefix}${field}`, message);
  if (!isJsonObject(input)) {
    fail('non_field_errors', 'Expected an object {from_id, to_id, type, metadata?}.');
    return {};
  }
  const edge: Partial<NewEdge> = {};
  for (const key of Object.keys(input))
    if (!['from_id', 'to_id', 'type', 'metadata'].includes(key)) fail(key, 'Unknown member of an edge.');
  const key = keyFieldOf(table.nodes);
  for (const end of ['from_id', 'to_id'] as const) {
    const value = input[end];
    if (value === undefined) {
      if (!partial) fail(end, 'This field is required.');
      continue;
    }
    const parsed =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? parseScalar(key, String(value)) : undefined;
    if (parsed === undefined) fail(end, `Expected a key of this table (${key.type}).`);
    else edge[end] = parsed;
  }
  if (input.type === undefined) {
    if (!partial) fail('type', 'This field is required.');
  } else if (typeof input.type !== 'string' || !table.hierarchy.types.some((type) => type.name === input.type)) {
    fail('type', `Unknown edge type; declared types: ${table.hierarchy.types.map((type) => type.name).join(', ') || '(none)'}.`);
  } else edge.type = input.type;
  if (input.metadata !== undefined) {
    if (!isJsonObject(input.metadata)) fail('metadata', 'Expected a JSON object.');
    else edge.metadata = input.metadata;
  } else if (!partial) edge.metadata = {};
  if (edge.from_id !== undefined && edge.from_id === edge.to_id) fail('to_id', 'An edge joins two different records.');
  return edge;
}

/** Both ends must be visible records, and each (from, type) within its `max_outgoing`; rows stay locked. */
async function checkEnds(
  tx: Queryable,
  table: HierarchyTable,
  edges: NewEdge[],
  prefix: (index: number) => string,
  replacing?: Edge,
): Promise<void> {
  const ends = [...new Set(edges.flatMap((edge) => [edge.from_id, edge.to_id]))];
  const visible = new Set((await tx.rows<{ k: string }>(visibleNodesSql(table.nodes, ends))).map((row) => row.k.toLowerCase()));
  const errors: Record<string, string[]> = {};
  edges.forEach((edge, index) => {
    for (const end of ['from_id', 'to_id'] as const)
      if (!visible.has(edge[end].toLowerCase())) addError(errors, `${prefix(index)}${end}`, 'No record with this key.');
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const capped = table.hierarchy.types.filter((type) => type.maxOutgoing !== undefined);
  if (capped.length === 0) return;
  const counts = new Map<string, number>();
  for (const row of await tx.rows<{ from_id: string; type: string; n: number }>(
    outgoingCountsSql(table.nodes, [...new Set(edges.map((edge) => edge.from_id))]),
  )) {
    counts.set(`${row.from_id.toLowerCase()}\n${row.type}`, Number(row.n));
  }
  if (replacing !== undefined) {
    const key = `${String(replacing.from_id).toLowerCase()}\n${String(replacing.type)}`;
    counts.set(key, (counts.get(key) ?? 1) - 1);
  }
  edges.forEach((edge, index) => {
    const max = capped.find((type) => type.name === edge.type)?.maxOutgoing;
    if (max === undefined) return;
    const key = `${edge.from_id.toLowerCase()}\n${edge.type}`;
    const next = (counts.get(key) ?? 0) + 1;
    counts.set(key, next);
    if (next > max)
      addError(
        errors,
        `${prefix(index)}type`,
        `Record ${edge.from_id} may have at most ${max} outgoing "${edge.type}" edge${max === 1 ? '' : 's'}.`,
      );
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** The database's own refusals in the same shape: a duplicate edge, an end that vanished meanwhile. */
async function mappingEdgeErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueViolationError)
      throw validationFailed({ to_id: ['An edge of this type between these records already exists.'] });
    if (error instanceof ForeignKeyViolationError)
      throw validationFailed({ [error.constraint?.includes('from') === true ? 'from_id' : 'to_id']: ['No record with this key.'] });
    if (error instanceof CheckViolationError) throw validationFailed({ to_id: ['An edge joins two different records.'] });
    throw error;
  }
}

export async function createEdges(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, body: unknown[]) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const errors: Record<string, string[]> = {};
  const edges = body.map((input, index) => checkedEdge(table, input, `${index}.`, errors, false) as NewEdge);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (edges.length === 0) return { total: 0, results: [] };
  const created = await db.transaction(async (tx) => {
    await checkEnds(tx, table, edges, (index) => `${index}.`);
    return mappingEdgeErrors(() => tx.rows<{ edge: string }>(insertEdgesSql(table.nodes, edges)));
  });
  return { total: created.length, results: created.map((row) => edgeOf(row.edge)) };
}

function edgeId(id: string): string {
  if (!/^\d{1,18}$/.test(id)) throw new NotFoundError('Not found', { extras: { detail: `No edge with id "${id}".` } });
  return id;
}

export async function updateEdge(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, id: string, body: unknown) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const errors: Record<string, string[]> = {};
  const change = checkedEdge(table, body, '', errors, true);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (Object.keys(change).length === 0)
    throw validationFailed({ non_field_errors: ['Give at least one of from_id, to_id, type, metadata.'] });
  return db.transaction(async (tx) => {
    const [current] = await tx.rows<{ edge: string }>(findEdgeSql(table.nodes, edgeId(id)));
    if (current === undefined) throw new NotFoundError('Not found', { extras: { detail: `No edge with id "${id}".` } });
    const before = edgeOf(current.edge);
    const after = {
      from_id: String(before.from_id),
      to_id: String(before.to_id),
      type: String(before.type),
      metadata: {},
      ...change,
    } as NewEdge;
    if (after.from_id === after.to_id) throw validationFailed({ to_id: ['An edge joins two different records.'] });
    if (change.from_id !== undefined || change.to_id !== undefined || change.type !== undefined)
      await checkEnds(tx, table, [after], () => '', before);
    const [updated] = await mappingEdgeErrors(() => tx.rows<{ edge: string }>(updateEdgeSql(table.nodes, id, change)));
    return { data: edgeOf(updated!.edge) };
  });
}

export async function deleteEdges(db: Queryable, site: Tenant, caller: Principal, address: EdgesAddress, body: unknown) {
  await assertMayWriteRecords(db, site, caller);
  const table = await hierarchyAt(db, site, address);
  const ids = isJsonObject(body) ? body.ids : undefined;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 10_000)
    throw validationFailed({ ids: ['Expected {ids: [edge ids]} with 1 to 10000 ids.'] });
  const texts = ids.map((value) => String(value));
  if (texts.some((text) => !/^\d{1,18}$/.test(text))) throw validationFailed({ ids: ['Edge ids are whole numbers.'] });
  const deleted = await db.rows(deleteEdgesSql(table.nodes, texts));
  return { deleted: deleted.length };
}
