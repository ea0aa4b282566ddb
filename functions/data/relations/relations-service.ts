// Record reads that involve relations: a list with related filters, related sorting and `populate`,
// and one record with `populate`. The list itself is the records module's statement (its filter
// compiler takes the related filters as WHERE fragments); populate runs after it over the page.
import type { Queryable } from '#shared/db/database.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import type { Config } from '#shared/config.ts';
import { readRecord } from '../records/record-service.ts';
import { planAnswer, type ListAnswer } from '../records/record-list.ts';
import { parseExactJson } from '#shared/json/exact-json.ts';
import { parseListQuery, type ListPlan, type QueryEntries, type QueryExtensions } from '../records/query/list-query.ts';
import { queryError } from '../records/query/query-error.ts';
import { loadTableDescriptor } from '../tables/table-lookup.ts';
import { populateRecords, type DataRecord } from './populate.ts';
import { PopulateRequest } from './populate-plan.ts';
import { asGraph, asTree, HierarchyRequest, withIncluded } from './hierarchy-read.ts';
import { relatedFilter, relatedSort } from './related-query.ts';
import { appRelations, loadAppRelations, type AppRelations, type RelationTable } from './relation-graph.ts';
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
    if ((key === '_sort' || key === 'ordering') && value.includes('.')) return true;
  }
  return false;
}

/**
 * The table and the relations of its app, from one read of the app's tables; a table not found
 * that way (missing, not materialized, or a reference to another app's table) takes the records
 * module's way, which answers the precise error or resolves the reference.
 */
export async function relationsOf(
  db: Queryable,
  site: Tenant,
  address: TableAddress,
): Promise<{ relations: AppRelations; base: RelationTable }> {
  const rows = await tablesOfActiveApp(db, site, address.app_slug);
  const own = rows.find((row) => row.name === address.name && row.is_materialized && row.is_active);
  if (own !== undefined) {
    const relations = appRelations(site, rows);
    return { relations, base: relations.table(own.name) };
  }
  const { table } = await loadTableDescriptor(db, site, address.app_slug, address.name);
  const relations = await loadAppRelations(db, site, table.app_id);
  return { relations, base: relations.table(table.name) };
}

export async function listWithRelations(
  db: Queryable,
  site: Tenant,
  address: TableAddress,
  query: QueryEntries,
  settings: RelationSettings,
  nextUrl: (plan: ListPlan) => string,
): Promise<ListAnswer | GraphAnswer> {
  const { relations, base } = await relationsOf(db, site, address);
  const depth = settings.populateMaxDepth;
  const populate = new PopulateRequest(relations, base);
  const hierarchy = new HierarchyRequest();
  const extensions: QueryExtensions = {
    claims: (key, raw) => hierarchy.claims(key, raw) || populate.claims(key, raw),
    relatedFilter: (key, raw) => relatedFilter(relations, base, key, raw, depth),
    relatedSort: (parameter, name, descending) => relatedSort(relations, base, parameter, name, descending, depth),
  };
  const plan = parseListQuery(base.descriptor, query, extensions);
  const nodes = populate.plan(depth);
  const graph = hierarchy.plan(base, 'list', settings.hierarchyDefaultDepth);
  if (plan.aggregates !== undefined && nodes.length > 0) throw queryError('populate', 'does not apply to an aggregation');
  if (plan.aggregates !== undefined && graph !== undefined) throw queryError('format', 'does not apply to an aggregation');
  const answer = parseExactJson(await planAnswer(db, base.descriptor, plan, nextUrl)) as ListAnswer;
  await populateRecords(db, answer.data as DataRecord[], nodes);
  if (graph?.format === 'graph') return { data: await asGraph(db, graph, answer.data as DataRecord[]), total: answer.total };
  return answer;
}

export interface GraphAnswer {
  data: { nodes: DataRecord[]; edges: unknown[] };
  /** null under `_count=none`. */
  total: number | null;
}

/**
 * One record with `populate` (and its controls), `include`/`depth`/`graph_types` or `format=tree`;
 * any other parameter is 400 naming it. Answers the whole body: `{data}`, with the included lists,
 * or the tree's `{data: [root], total}`. A body with included lists comes as JSON text made mostly by
 * the database.
 */
export async function readWithRelations(
  db: Queryable,
  site: Tenant,
  address: TableAddress,
  id: string,
  query: QueryEntries,
  settings: RelationSettings,
): Promise<Record<string, unknown> | string> {
  const { relations, base } = await relationsOf(db, site, address);
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
  const record = await readRecord(db, base.descriptor, id);
  await populateRecords(db, [record], nodes);
  if (graph?.format === 'tree') return asTree(db, graph, id, record);
  if (graph?.include !== undefined) return withIncluded(db, graph, id, record);
  return { data: record };
}
