// Record reads that involve relations: a list with related filters, related sorting and `populate`,
// and one record with `populate`. The list itself is the records module's statement (its filter
// compiler takes the related filters as WHERE fragments); populate runs after it over the page.
import type { Queryable } from '#shared/db/database.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { Config } from '#shared/config.ts';
import type { SQL } from 'drizzle-orm';
import type { RequestContext } from '#shared/http/request-context.ts';
import { JsonText } from '#shared/http/reply.ts';
import { keyText, recordOrNotFound } from '../records/record-service.ts';
import { detailSql } from '../records/record-sql.ts';
import { listAnswerOfText, nextPageUrl, planAnswer, type ListAnswer } from '../records/record-list.ts';
import { listSql } from '../records/query/compile.ts';
import { appTablesFingerprint } from '../records/fused-read-sql.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { parseListQuery, type ListPlan, type QueryEntries, type QueryExtensions } from '../records/query/list-query.ts';
import { queryError } from '../records/query/query-error.ts';
import { loadTableDescriptor } from '../tables/table-lookup.ts';
import { populateRecords, type DataRecord } from './populate.ts';
import { PopulateRequest, type PopulateNode } from './populate-plan.ts';
import { asGraph, asTree, asTrees, HierarchyRequest, recordAnswerSql, rootsOnlyFilter, type HierarchyPlan } from './hierarchy-read.ts';
import { readWithRememberedRelations, rememberRelations, type FoundRelations } from './fused-relation-reads.ts';
import { assertReachesReferenceSource } from './reference-service.ts';
import { relatedFilter, relatedSort, relatedValue } from './related-query.ts';
import { appRelations, loadAppRelations, referenceRelations } from './relation-graph.ts';
import { tablesOfActiveApp } from '../tables/table-repository.ts';

export type RelationSettings = Config['relations'];

export interface TableAddress {
  app_slug: string;
  name: string;
}

// `<relation>_sort` and the like; `_sort` itself (no relation before it) is the list's own.
const POPULATE_CONTROL = /^.+_(sort|order|limit|offset)$/;
const HIERARCHY_PARAMETERS = new Set(['format', 'include', 'depth', 'graph_types']);

/** Whether a query needs the relations of its table (else the records module answers it alone). */
export function asksForRelations(query: QueryEntries): boolean {
  for (const [key, value] of query) {
    if (key.includes('.') || key === 'populate' || POPULATE_CONTROL.test(key) || HIERARCHY_PARAMETERS.has(key)) return true;
    if (['_sort', 'ordering', '_group_by', '_aggregate'].includes(key) && value.includes('.')) return true;
  }
  return false;
}

/**
 * The table and the relations of its app, from one read of the app's tables; a table not found
 * that way (missing, not materialized, or a reference to another app's table) takes the records
 * module's way, which answers the precise error or resolves the reference. A reference has no
 * relations (relation-graph.ts `referenceRelations`).
 */
export async function relationsOf(db: Queryable, site: Tenant, address: TableAddress): Promise<FoundRelations> {
  const rows = await tablesOfActiveApp(db, site, address.app_slug);
  const own = rows.find((row) => row.name === address.name && row.is_materialized && row.is_active);
  if (own !== undefined) {
    const relations = appRelations(site, rows);
    return {
      relations,
      base: relations.table(own.name),
      own: { tableId: own.id, schemaHash: own.schema_hash, appTables: appTablesFingerprint(rows) },
    };
  }
  const { table } = await loadTableDescriptor(db, site, address.app_slug, address.name);
  const relations = await loadAppRelations(db, site, table.app_id);
  const base = relations.table(table.name);
  if (rows.some((row) => row.id === table.id)) return { relations, base };
  // Not one of the app's tables: a reference, whose keys would lead into its source app.
  const reference = referenceRelations(base, address.name);
  return { relations: reference, base: reference.table(address.name), sourceApp: table.app_slug };
}

/** The relations the ordinary way, once the caller's context is established; remembered for the next read. */
async function foundRelations(ctx: RequestContext, address: TableAddress): Promise<FoundRelations> {
  const found = await relationsOf(ctx.runtime.db, ctx.site, address);
  // A reference reads its source app's records: the caller must reach that app, as a direct read would.
  if (found.sourceApp !== undefined) await assertReachesReferenceSource(ctx.runtime.db, ctx.site, ctx.user, found.sourceApp, 'read');
  rememberRelations(ctx, address, found);
  return found;
}

interface RelationalList {
  plan: ListPlan;
  nodes: PopulateNode[];
  graph: HierarchyPlan | undefined;
}

function parseRelationalList({ relations, base }: FoundRelations, query: QueryEntries, settings: RelationSettings): RelationalList {
  const depth = settings.populateMaxDepth;
  const populate = new PopulateRequest(relations, base);
  const hierarchy = new HierarchyRequest();
  const extensions: QueryExtensions = {
    claims: (key, raw) => hierarchy.claims(key, raw) || populate.claims(key, raw),
    relatedFilter: (key, raw) => relatedFilter(relations, base, key, raw, depth),
    relatedSort: (parameter, name, descending) => relatedSort(relations, base, parameter, name, descending, depth),
    relatedValue: (parameter, name) => relatedValue(relations, base, parameter, name, depth),
  };
  const plan = parseListQuery(base.descriptor, query, extensions);
  const nodes = populate.plan(depth);
  const graph = hierarchy.plan(base, 'list', settings.hierarchyDefaultDepth);
  if (plan.aggregates !== undefined && nodes.length > 0) throw queryError('populate', 'does not apply to an aggregation');
  if (plan.aggregates !== undefined && graph !== undefined) throw queryError('format', 'does not apply to an aggregation');
  if (graph?.format === 'tree') plan.filters.push(rootsOnlyFilter(graph));
  return { plan, nodes, graph };
}

/**
 * A list with related filters or sorting, `populate` or `format=graph`: the records module's one
 * list statement (related filters and sorts are fragments of it), fused with the caller's context
 * when the app's relations are remembered; populate and the graph's edges then read over the page.
 */
export async function listWithRelations(
  ctx: RequestContext,
  address: TableAddress,
  query: QueryEntries,
  settings: RelationSettings,
): Promise<JsonText | ListAnswer | GraphAnswer> {
  const db = ctx.runtime.db;
  const nextUrl = (plan: ListPlan) => nextPageUrl(ctx, plan);
  let parsed: RelationalList | undefined;
  const fused = await readWithRememberedRelations(ctx, address, (found) => {
    parsed = parseRelationalList(found, query, settings);
    return { answer: listSql(found.base.descriptor, parsed.plan) };
  });
  let text: string;
  if (fused !== undefined) {
    text = await listAnswerOfText(db, fused.found.base.descriptor, parsed!.plan, fused.answer, nextUrl);
  } else {
    const found = await foundRelations(ctx, address);
    parsed = parseRelationalList(found, query, settings);
    text = await planAnswer(db, found.base.descriptor, parsed.plan, nextUrl);
  }
  const { nodes, graph } = parsed!;
  if (nodes.length === 0 && graph === undefined) return new JsonText(text);
  const answer = parseExactJson(text) as ListAnswer;
  await populateRecords(db, answer.data as DataRecord[], nodes);
  // The list's own members (`total_is_estimate`, `next` and the paging) stay: only `data` changes form.
  if (graph?.format === 'graph') return { ...answer, data: await asGraph(db, graph, answer.data as DataRecord[]) };
  if (graph?.format === 'tree') answer.data = (await asTrees(db, graph, answer.data as DataRecord[])).roots;
  return answer;
}

/** A list answer (every member `_count` gives it) whose page is a graph. */
export interface GraphAnswer extends Omit<ListAnswer, 'data'> {
  data: { nodes: DataRecord[]; edges: unknown[] };
}

interface RelationalRecord {
  nodes: PopulateNode[];
  graph: HierarchyPlan | undefined;
  /** The record's key as bound, and its answer's statement for any key. */
  key: string;
  answer: (key: string) => SQL;
}

function parseRelationalRecord(
  { relations, base }: FoundRelations,
  id: string,
  query: QueryEntries,
  settings: RelationSettings,
): RelationalRecord {
  const populate = new PopulateRequest(relations, base);
  const hierarchy = new HierarchyRequest();
  const seen = new Set<string>();
  for (const [key, raw] of query) {
    if (seen.has(key)) throw queryError(key, 'is given more than once');
    seen.add(key);
    if (!hierarchy.claims(key, raw) && !populate.claims(key, raw)) throw queryError(key, 'is not a parameter of a single record');
  }
  const nodes = populate.plan(settings.populateMaxDepth);
  const graph = hierarchy.plan(base, 'record', settings.hierarchyDefaultDepth);
  const included = graph?.format === 'tree' ? undefined : graph;
  return {
    nodes,
    graph,
    key: keyText(base.descriptor, id),
    answer: (key) => recordAnswerSql(detailSql(base.descriptor, key), key, included),
  };
}

/**
 * One record with `populate` (and its controls), `include`/`depth`/`graph_types` or `format=tree`;
 * any other parameter is 400 naming it. Answers the whole body: `{data}`, with the included lists
 * (made by the database in the record's statement, fused with the caller's context when the app's
 * relations are remembered), or the tree's `{data: [root], total}`.
 */
export async function readWithRelations(
  ctx: RequestContext,
  address: TableAddress,
  id: string,
  query: QueryEntries,
  settings: RelationSettings,
): Promise<Record<string, unknown> | JsonText> {
  const db = ctx.runtime.db;
  let parsed: RelationalRecord | undefined;
  const fused = await readWithRememberedRelations(ctx, address, (found) => {
    parsed = parseRelationalRecord(found, id, query, settings);
    // Besides the key, the statement depends on the query as given, in its order, and the settings.
    const shape = JSON.stringify([settings.hierarchyDefaultDepth, settings.populateMaxDepth, query]);
    return { byKey: { key: parsed.key, shape, answer: parsed.answer } };
  });
  let found: FoundRelations;
  let text: string;
  if (fused !== undefined) {
    ({ found, answer: text } = fused);
  } else {
    found = await foundRelations(ctx, address);
    parsed = parseRelationalRecord(found, id, query, settings);
    const [row] = await db.rows<{ answer: string }>(parsed.answer(parsed.key));
    text = row!.answer;
  }
  // The record's own 404 (its statement answered no row).
  if (text === 'null') return recordOrNotFound(found.base.descriptor, id, []);
  const { nodes, graph } = parsed!;
  if (nodes.length === 0 && graph?.format !== 'tree') return new JsonText(text);
  const answer = parseExactJson(text) as { data: DataRecord };
  await populateRecords(db, [answer.data], nodes);
  if (graph?.format === 'tree') return asTree(db, graph, answer.data);
  return answer;
}
